/* The app's initial stack as the kernel builds it at execve: argc, argv, envp, the
 * auxiliary vector, and the strings and random bytes they point at. */
#ifndef LOADER_INITIAL_STACK_H
#define LOADER_INITIAL_STACK_H

#include <stddef.h>
#include <stdint.h>

#include "elf_map.h"

enum { STACK_GUARD_GAP = 1 << 20 };

struct initial_stack {
	uint64_t guard;	      /* STACK_GUARD_GAP inaccessible bytes right below the stack */
	uint64_t base, size;  /* the stack mapping */
	uint64_t sp;	      /* the app's %rsp at its first instruction */
	const uint64_t *auxv; /* the auxv pairs as placed on the stack, AT_NULL included */
	size_t auxv_bytes;
};

/* interp may be NULL (static program). Returns 0, or -1 when memory cannot be had. */
int initial_stack_build(char *const *argv, char *const *envp, const char *execfn,
			const struct elf_image *exe, const struct elf_image *interp,
			struct initial_stack *out);

#endif

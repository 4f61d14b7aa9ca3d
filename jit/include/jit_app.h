/* The app's address space as the runtime keeps it: for a recorder that snapshots it and a
 * replayer that rebuilds it. TLS-free (app threads), except where a function says it is
 * for the driver's main thread. */
#ifndef JIT_APP_H
#define JIT_APP_H

#include <stdint.h>

/* One mapping the app owns (its images, stack, break, and what it mapped itself; never
 * the runtime's own memory). */
struct jit_app_mapping {
	uint64_t start, end; /* page-aligned */
	uint32_t prot;	     /* as the app asked (PROT_EXEC kept in checking mode) */
	uint32_t flags;	     /* MAP_* as given */
	uint64_t offset;     /* file offset of start */
	const char *path;    /* file, "[stack]", "[heap]", or NULL (anonymous) */
};

/* Calls fn for each mapping in address order; stops early, returning fn's value, when fn
 * returns nonzero. */
int jit_app_map_foreach(int (*fn)(const struct jit_app_mapping *m, void *arg), void *arg);

/* Calls fn for address ranges the app had mapped and has unmapped (or moved away) since it
 * started, merged and sorted; stops early, returning fn's value, when fn returns non-zero.
 * A range may be wider than what was mapped, and mapped again since. */
int jit_app_map_retired_foreach(int (*fn)(uint64_t start, uint64_t end, void *arg), void *arg);

/* Takes over a mapping that is already in place (a replay maps the recorded memory itself,
 * on the driver's main thread before the app starts, or in place of the app's mmap of a
 * file): from now on it is the app's, as if the app had mapped it. path is copied. An
 * executable file mapping goes to the clients (image_mapped) as the app's would: those
 * adopted before the app starts, when it starts (jit_run_state). */
void jit_app_map_adopt(const struct jit_app_mapping *m);

/* The emulated program break (the real one is the driver's): where it starts, where it
 * is, where its mapped pages end. */
void jit_app_brk_state(uint64_t *start, uint64_t *current, uint64_t *mapped_end);

/* Bytes of address space the emulated break reserves from its start. */
uint64_t jit_app_brk_reserve_size(void);

/* Takes over a break whose pages [start, mapped_end) are already mapped (a replay, on the
 * driver's main thread before the app starts): the rest of the reservation is claimed
 * around them. 0, or -errno. */
int jit_app_brk_adopt(uint64_t start, uint64_t current, uint64_t mapped_end);

/* The program's absolute path (what /proc/self/exe shows the app). A replay, which does
 * not load the program, sets it (driver's main thread, before the app starts). */
const char *jit_app_exe_path(void);
void jit_app_set_exe_path(const char *path);

/* Performs an address-space syscall (mmap, munmap, mprotect, mremap, brk) for the app
 * exactly as the runtime does when the app makes it: the memory map, translated code and
 * the break follow. Returns the kernel's result (or -errno); -ENOSYS for another nr. */
long jit_app_memory_syscall(long nr, const long args[6]);

#endif

#include <stddef.h>

#include "syscall_model.h"

/* Generated at build time from the kernel headers' __NR_ definitions. */
static const char *const names[] = {
#define SYSCALL(nr, name) [nr] = #name,
#include "kernel_syscalls.inc"
#undef SYSCALL
};

const char *syscall_name(long nr)
{
	if (nr < 0 || (unsigned long)nr >= sizeof names / sizeof names[0])
		return NULL;
	return names[nr];
}

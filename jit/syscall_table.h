/* What each x86-64 system call writes into the caller's memory, for recording and
 * injecting its effects (DESIGN.md: "A table describes every x86-64 syscall").
 *
 * syscall_writes lists the ranges the kernel wrote, given the arguments and the result
 * (read after the call, e.g. the final length of a sockaddr). */
#ifndef JIT_SYSCALL_TABLE_H
#define JIT_SYSCALL_TABLE_H

#include <stdint.h>

struct mem_range {
	uint64_t addr;
	uint64_t len;
};

enum { SYSCALL_MAX_WRITES = 64 };

/* Fills out[] (at most SYSCALL_MAX_WRITES) and returns how many ranges; returns -1 for a
 * syscall the table does not describe (its effects are unknown: "unmodelled"). */
int syscall_writes(long nr, const long args[6], long result, struct mem_range *out);

/* Syscalls that change the address space (replayed by performing them, not injecting). */
int syscall_changes_memory_map(long nr);

#endif

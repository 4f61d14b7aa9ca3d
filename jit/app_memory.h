/* The app's memory-management system calls: an emulated program break, and the mmap
 * family passed through with the effects on translated code (flushes) and, in checking
 * mode, without execute permission for app pages. */
#ifndef JIT_APP_MEMORY_H
#define JIT_APP_MEMORY_H

#include <stdint.h>

#include "jit_app.h"

/* Reserves the break region, starting at or after `near` (the end of the app image). */
int app_brk_init(uint64_t near);

/* For an error about memory the runtime could not map: when the process has an address-
 * space limit (ulimit -v), a clause naming it, which the runtime's reservations (the app's
 * break, the code cache) count against as the app's own memory does; else "". */
const char *app_memory_limit_clause(void);

long app_brk(uint64_t addr);
long app_mmap(const long args[6]);
long app_munmap(uint64_t addr, uint64_t len);
long app_mprotect(uint64_t addr, uint64_t len, long prot);
long app_mremap(const long args[6]);

/* Protection bits as they are applied to app memory: executable memory readable too (the
 * translator reads the code; a CPU with protection keys makes PROT_EXEC alone execute-only,
 * as x86 never was before them), and no PROT_EXEC in checking mode. */
long app_prot(long prot);

#endif

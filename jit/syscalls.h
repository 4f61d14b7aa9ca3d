/* The app's system calls: performed for it, emulated where the runtime must own the
 * effect (memory layout, %fs, signals, processes, exec, what /proc says). */
#ifndef JIT_SYSCALLS_H
#define JIT_SYSCALLS_H

#include "thread_block.h"

/* Runs the syscall whose number and arguments are in t's saved registers and leaves the
 * result in t->gpr[GPR_RAX]; t->app_pc is where the thread continues. */
void syscall_dispatch(struct jit_thread *t);

/* The syscall's name ("openat"), or NULL for a number the build does not know. */
const char *syscall_name(long nr);

/* Runs the clients' exit hooks and the statistics, then ends the process. */
_Noreturn void process_exit(int status);

#endif

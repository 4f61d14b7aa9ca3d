/* The app's system calls: performed for it, emulated where the runtime must own the
 * effect (memory layout, %fs, signals, processes, exec, what /proc says). */
#ifndef JIT_SYSCALLS_H
#define JIT_SYSCALLS_H

#include "thread_block.h"

/* Runs the syscall whose number and arguments are in t's saved registers and leaves the
 * result in t->gpr[JIT_GPR_RAX]; t->app_pc is where the thread continues. */
void syscall_dispatch(struct jit_thread *t);

#endif

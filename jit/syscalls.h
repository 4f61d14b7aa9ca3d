/* The app's system calls: performed for it, emulated where the runtime must own the
 * effect (memory layout, %fs, signals, processes, exec, what /proc says). */
#ifndef JIT_SYSCALLS_H
#define JIT_SYSCALLS_H

#include "seccomp.h"
#include "thread_block.h"

/* Runs the syscall whose number and arguments are in t's saved registers and leaves the
 * result in t->gpr[JIT_GPR_RAX]; t->app_pc is where the thread continues. The app's seccomp
 * filters judge it first (seccomp.h). */
void syscall_dispatch(struct jit_thread *t);
/* The same, judged already (v). A refused syscall never starts: clients see only its result
 * (syscall_post), or, when it kills one thread of several, that thread's exit (syscall_pre
 * of exit). */
void syscall_dispatch_judged(struct jit_thread *t, const struct seccomp_verdict *v);
/* What a refusing verdict does to t: the syscall's result (SECCOMP_FAILS, SECCOMP_TRAPS,
 * which also forces its signal), or no return (the thread or the process dies; clients see
 * a thread that dies while others go on exit). */
long syscall_refused(struct jit_thread *t, const struct seccomp_verdict *v);

#endif

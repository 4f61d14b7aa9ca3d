/* Signals, as the kernel would deliver them to the app: the runtime owns every real
 * handler; the app's actions, mask discipline and alternate stack are kept for it, and its
 * handlers are called on kernel-layout frames (signal_frame.h).
 *
 * - Synchronous faults in app code are delivered at once, with the faulting instruction's
 *   app address and registers.
 * - Asynchronous signals are noted when they arrive and delivered at the thread's next
 *   block boundary; the fragment it is in is unlinked so that it gets there soon. A
 *   blocking syscall they interrupt returns EINTR, or is restarted for SA_RESTART actions
 *   when the kernel would restart it.
 * - A signal whose action is the default ends the process as natively (same wait status). */
#ifndef JIT_SIGNALS_H
#define JIT_SIGNALS_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>

#include "thread_block.h"

/* Installs the runtime's fault handlers, and the first thread's signal state. */
void signals_init(struct jit_thread *t);
/* A new thread's own: an alternate stack for the runtime's handlers, its pending set. */
void signals_init_thread(struct jit_thread *t);
/* The kernel state signals_init_thread and the app's mask gave t, for a new kernel thread
 * that goes on as t (in a copy of the process, park.h). */
void signals_revive_thread(struct jit_thread *t);

/* An exited thread's signal state and stack go (the thread no longer runs). */
void signals_release_thread(struct jit_thread *t);

/* A vfork child gets its own copy of the app's actions and alternate stack, as the kernel
 * gives it its own handlers; false when out of memory. Freed by signals_release_thread. */
bool signals_own_copy(struct jit_thread *child, const struct jit_thread *parent);

/* rt_sigaction and sigaltstack as the app sees them (t's process). Return the syscall
 * result. */
long signals_app_sigaction(struct jit_thread *t, int sig, uint64_t act, uint64_t oldact,
			   uint64_t sigsetsize);
long signals_app_sigaltstack(struct jit_thread *t, uint64_t ss, uint64_t old_ss);

/* rt_sigprocmask as the app sees it (its mask; the real one keeps fault signals open). */
long signals_app_sigprocmask(struct jit_thread *t, int how, uint64_t set, uint64_t oldset,
			     uint64_t size);
/* A new thread starts with its parent's mask, as it was at the clone (child->start_mask). */
void signals_inherit_mask(struct jit_thread *child);

/* rt_sigreturn: restores t from the frame on its stack (dies by SIGSEGV on a bad one). */
void signals_sigreturn(struct jit_thread *t);

/* rt_sigsuspend: the handler that ends it runs under the suspend mask, as the kernel's. */
long signals_sigsuspend(struct jit_thread *t, uint64_t mask, uint64_t size);

/* Syscalls that wait under a temporary mask of the app's (ppoll, pselect6, epoll_pwait,
 * epoll_pwait2): the mask the kernel gets instead (the app's, with the runtime's fault
 * signals open); after the call, a signal the temporary mask let in is delivered under it,
 * the handler's frame saving the thread's own mask, as the kernel does. */
uint64_t signals_real_mask(uint64_t app_mask);
void signals_after_temporary_mask(struct jit_thread *t, uint64_t app_mask, long result);

/* An execve: the program it runs starts with exactly the app's mask (fault signals
 * included, which the runtime keeps open for itself); put back when it fails. */
void signals_before_exec(struct jit_thread *t);
void signals_after_failed_exec(struct jit_thread *t);

/* True when a signal waits for delivery to an app handler. */
bool signals_pending(const struct jit_thread *t);
/* The app's ignored and caught signals (bit signo-1), as the kernel shows them in
 * /proc/self/status (SigIgn, SigCgt) for a process that set them. */
void signals_app_dispositions(const struct jit_thread *t, uint64_t *ignored, uint64_t *caught);

/* At a block boundary (t->app_pc is where the thread goes next): calls the app's handler
 * for the first deliverable pending signal, by changing t's state. */
void signals_deliver_pending(struct jit_thread *t);

/* After a syscall that returned -EINTR: whether it must be restarted (a pending signal's
 * action has SA_RESTART and the kernel restarts this syscall for it). */
bool signals_restart_syscall(const struct jit_thread *t, long nr);

/* The app raised a synchronous fault at pc, sig with si_code `code` for address addr (an
 * undefined opcode, say): returns with t pointed at the app's handler, or ends the process
 * by the signal. */
void signals_app_fault(struct jit_thread *t, int sig, int code, uint64_t pc, uint64_t addr);

/* The app went to pc, where its next instruction cannot be read whole: the fault the CPU's
 * fetch raises, at the first byte it cannot read (SIGSEGV, unmapped or not readable; SIGBUS
 * past the end of a mapped file), as signals_app_fault. */
void signals_fetch_fault(struct jit_thread *t, uint64_t pc);

/* A signal the kernel forces on t as its syscall returns (seccomp's SIGSYS, info its
 * siginfo): delivered before the thread's next instruction when the app handles it and does
 * not block it; otherwise the process dies of it, as the kernel then resets it to its
 * default action. */
void signals_force(struct jit_thread *t, const siginfo_t *info);

/* A fault the signal handler left for the dispatcher (EXIT_FAULT, when clients filter
 * signals): its pc, and taking it there: the clients' filter, then the app's handler or its
 * death, or nothing (the filter withheld it: the instruction runs again). */
uint64_t signals_fault_pc(const struct jit_thread *t);
void signals_take_fault(struct jit_thread *t);

/* Ends the process the way signal `sig` with its default action would (the clients' app_dies
 * hooks first, told where the current thread stands). */
_Noreturn void signals_die_by(int sig, enum jit_death_place where);

#endif

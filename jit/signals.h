/* Signals, as far as the single-threaded runtime handles them: the runtime owns the real
 * handlers of the synchronous faults, keeps the app's actions and alternate stack as
 * virtual state, and makes an app that dies of a signal die of that signal. Delivering
 * signals to app handlers is not implemented yet; it ends the run with a clear message. */
#ifndef JIT_SIGNALS_H
#define JIT_SIGNALS_H

#include <stdint.h>

#include "thread_block.h"

/* Installs the runtime's fault handlers and an alternate stack for the calling thread. */
void signals_init(void);

/* rt_sigaction and sigaltstack as the app sees them. Return the syscall result. */
long signals_app_sigaction(int sig, uint64_t act, uint64_t oldact, uint64_t sigsetsize);
long signals_app_sigaltstack(uint64_t ss, uint64_t old_ss);

/* The app raised a synchronous fault at pc (e.g. jumped to unmapped memory). */
_Noreturn void signals_app_fault(struct jit_thread *t, int sig, uint64_t pc);

/* Ends the process the way signal `sig` with its default action would. */
_Noreturn void signals_die_by(int sig);

#endif

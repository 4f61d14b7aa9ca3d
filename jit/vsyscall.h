/* The legacy vsyscall page (0xffffffffff600000): old programs call its three entries, and
 * the kernel emulates them when the call faults there (it is execute-only, or absent). The
 * runtime cannot fetch code there either, so it does as the kernel does. */
#ifndef JIT_VSYSCALL_H
#define JIT_VSYSCALL_H

#include <stdbool.h>
#include <stdint.h>

#include "thread_block.h"

/* The app's code could not be fetched at pc: when pc is an entry of the vsyscall page, its
 * syscall runs (as any of the app's, seen by the clients) and the thread returns to the
 * caller (t->app_pc); a bad pointer argument raises SIGSEGV there, as the kernel's
 * emulation does. False when pc is no entry. Runtime lock held. */
bool vsyscall_emulate(struct jit_thread *t, uint64_t pc);

#endif

/* App threads waiting in jit_wait_unlocked, which a copy of the process can bring back
 * (park.S): the JIT's side of a debugger's multithreaded checkpoints. */
#ifndef JIT_PARK_H
#define JIT_PARK_H

#include "thread_block.h"

/* Runs wait(arg), then takes the runtime's lock (the caller released it), so that a copy
 * made meanwhile can resume the calling thread (p is its park). */
void park_wait(struct thread_park *p, void (*wait)(void *arg), void *arg);

/* In a copy just forked by self: the other live threads that were waiting become frozen
 * (kept, with no kernel thread until jit_thaw_threads); the others exit. */
void park_freeze_waiting(struct jit_thread *self);

#endif

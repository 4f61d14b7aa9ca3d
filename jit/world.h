/* Stop-the-world: every app thread but the caller held at a safe point.
 *
 * The caller holds the runtime lock. Every link between fragments is undone and every
 * indirect-branch table emptied, so each thread running app code leaves the cache at the
 * end of its current basic block and then waits for the runtime lock in the dispatcher;
 * a thread in a syscall already counts as stopped (it cannot re-enter the cache without
 * the lock). When world_stop returns, no other thread runs app code until the caller
 * releases the runtime lock; their registers are in their thread blocks. */
#ifndef JIT_WORLD_H
#define JIT_WORLD_H

#include "thread_block.h"

/* self: the calling app thread, or NULL from a helper thread. */
void world_stop(const struct jit_thread *self);

/* How many times the world was stopped (for -jit:stats). */
uint64_t world_stops(void);

#endif

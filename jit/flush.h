/* Dropping translations.
 *
 * jit_flush_cache: every translation is retired (see fragment.h): safe at any time, also
 * from a callout while the thread is in the middle of a fragment; the old code is kept.
 * jit_reset_cache: everything is freed and the cache memory reused, once every other thread
 * is out of the cache (the world is stopped: the caller holds the runtime lock, between
 * blocks); a thread that waited in a callout comes back through a fresh translation.
 * jit_reset_cache_alone: the same, by the process's only thread, in the runtime and out of
 * any callout: nothing to stop, nor to unlink first. */
#ifndef JIT_FLUSH_H
#define JIT_FLUSH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

void jit_flush_cache(void);
/* Retires only the translations holding one of the app pcs (sorted ascending); same rules
 * as jit_flush_cache. */
void jit_flush_pcs(const uint64_t *pcs, size_t n);
/* Whether a client has retired translations by their pcs in this process (the controller's
 * alarms, armed and disarmed again and again): each translation that holds such a pc goes
 * at each arming, and a chain that is entered in its middle should not be made twice. */
bool flush_by_pcs_seen(void);
void jit_reset_cache(void);
void jit_reset_cache_alone(void);

#endif

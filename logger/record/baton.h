/* The baton: inside a recorded region the app's threads run one at a time, so that the
 * order of their accesses to shared memory is the recorded schedule. A thread holds the
 * baton while it runs app code; it passes it on at the end of a time slice when another
 * thread waits, and around every system call (which may block). Waiters are served in
 * the order they came (a ticket lock). App threads, TLS-free. */
#ifndef LOGGER_BATON_H
#define LOGGER_BATON_H

#include <stdbool.h>
#include <stdint.h>

/* A region starts: the calling thread holds the baton. (World stopped.) */
void baton_enable(void);

/* The region ends: nobody holds it, and every waiter stops waiting. (World stopped.) */
void baton_disable(void);

/* A place in the queue, taken under the runtime's lock, where regions start and end: a
 * ticket taken in a region is never served in the next one (a waiter that took it just
 * before the region's end must not hold the next region's baton without having started
 * there). `valid`: the baton is enabled (a region is on). */
struct baton_ticket {
	int number;
	unsigned generation;
	bool valid;
};
struct baton_ticket baton_take(void);

/* Waits until the ticket is served: true (the caller holds the baton); false when its
 * region ended meanwhile. Call through jit_wait_unlocked: it blocks. */
bool baton_wait(const struct baton_ticket *t);

/* Passes the baton to the next waiter (the caller holds it). */
void baton_release(void);

/* Whether some thread waits for it. */
bool baton_wanted(void);

#endif

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

/* Waits until the caller holds the baton: true; false when the region ended (or another
 * one began) meanwhile. Call through jit_wait_unlocked: it blocks. */
bool baton_acquire(void);

/* Passes the baton to the next waiter (the caller holds it). */
void baton_release(void);

/* Whether some thread waits for it. */
bool baton_wanted(void);

#endif

/* The address space a replay holds for the app, set up on the driver's main thread before
 * the app starts: the recorded mappings at their addresses with the recorded pages in
 * them, the program break's reservation, and a claim on every range the region maps later
 * (so that none of the replayer's own memory lands there meanwhile). */
#ifndef REPLAYER_REPLAY_MEMORY_H
#define REPLAYER_REPLAY_MEMORY_H

#include <stddef.h>

#include "pinball.h"
#include "replay_input.h"

/* Maps the recorded memory of pinball r into in (and the JIT's map of the app). Returns 0;
 * 2 with a one-line message for bad input; 3 when a recorded range is taken by the
 * replayer itself (a fresh address-space layout may help). */
int replay_memory_map(const struct pinball_reader *r, struct replay_input *in, char *err,
		      size_t errlen);

/* Claims the ranges that the recorded mmap and mremap calls return (in->events read).
 * Same results as replay_memory_map. */
int replay_memory_claim_future(struct replay_input *in, char *err, size_t errlen);

#endif

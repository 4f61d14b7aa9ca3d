/* The hand-off's state, shared by the queue (both sides) and the helper thread. */
#ifndef TOOL_HANDOFF_INTERNAL_H
#define TOOL_HANDOFF_INTERNAL_H

#include <stdbool.h>

#include "handoff.h"
#include "rt_mutex.h"

struct handoff {
	struct handoff_ops ops;
	long pid; /* the process the helper runs in */
	rt_mutex lock;
	struct handoff_buffer *head, *tail; /* handed over, oldest first */
	struct handoff_buffer *free;
	int queued;   /* handed over and not recycled yet */
	int handed;   /* bumped at each hand-over (the helper sleeps on it) */
	int recycled; /* bumped at each recycling (a thread waiting for room sleeps on it) */
	int ending;   /* the app asked for the end */
	int done;     /* the helper finished */
};

/* Helper: the next buffer handed over, NULL once the app asked for the end and every
 * buffer was taken. */
struct handoff_buffer *handoff_next(struct handoff *h);
/* The buffer was consumed and may be reused. */
void handoff_recycle(struct handoff *h, struct handoff_buffer *b);

#endif

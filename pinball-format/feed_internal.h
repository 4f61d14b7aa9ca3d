/* The feed's shared state: a single-producer single-consumer ring per stream. Internal.
 *
 * Wake-ups without lost signals: a side that goes to sleep first raises its `sleeping`
 * flag, then re-reads the futex word it will wait on; the other side bumps that word, then
 * reads the flag (all seq_cst), so one of them always sees the other. */
#ifndef PINBALL_FEED_INTERNAL_H
#define PINBALL_FEED_INTERNAL_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "pinball.h"

enum { FEED_RUNNING, FEED_ENDED, FEED_FAILED };

struct feed_stream {
	uint32_t tid;
	struct pinball_cursor *cursor; /* producer's */
	void **ring;   /* slots hold the producer's blocks; it frees a slot's old block
			* when it reuses the slot, and all of them at the end */
	uint32_t mask; /* ring size - 1 */
	uint32_t head; /* first slot not given back; written by the consumer */
	bool held;     /* the consumer holds ring[head] */
	uint32_t tail; /* next to fill; written by the producer */
	int seq;       /* futex word: bumped on every push and at the end */
	int sleeping;  /* the consumer waits on seq */
	int state;     /* FEED_* */
};

struct pinball_feed {
	struct pinball_reader *reader;
	struct feed_stream *streams; /* events streams sorted by tid, then the schedule */
	size_t nevents;
	int space;    /* futex word: bumped whenever a consumer takes an item */
	int sleeping; /* the producer waits on space */
	int stop;
	int failed; /* err is written */
	bool started;
	pthread_t thread;
	char err[PINBALL_ERR_MAX];
};

#endif

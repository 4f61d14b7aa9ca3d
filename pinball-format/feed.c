/* The producer side of the feed: a helper pthread decoding every events part and the
 * schedule into malloc'd blocks ahead of the consumers, and freeing the blocks they gave
 * back. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "feed_internal.h"
#include "pinball_feed.h"
#include "rt_syscall.h"

/* One block holding the event, its write list and every byte it points to. */
static struct pinball_event *flatten(const struct pinball_event *e)
{
	size_t nw = e->kind == PINBALL_EV_SYSCALL ? e->syscall.nwrites : 0;
	size_t size = sizeof *e + nw * sizeof(struct pinball_mem_write);
	for (size_t i = 0; i < nw; i++)
		size += e->syscall.writes[i].len;
	if (e->kind == PINBALL_EV_SIGNAL)
		size += e->signal.siginfo_len;
	struct pinball_event *copy = malloc(size);
	if (!copy)
		return NULL;
	*copy = *e;
	struct pinball_mem_write *writes = (struct pinball_mem_write *)(copy + 1);
	uint8_t *bytes = (uint8_t *)(writes + nw);
	for (size_t i = 0; i < nw; i++) {
		writes[i] = e->syscall.writes[i];
		memcpy(bytes, writes[i].data, writes[i].len);
		writes[i].data = bytes;
		bytes += writes[i].len;
	}
	if (e->kind == PINBALL_EV_SYSCALL)
		copy->syscall.writes = writes;
	if (e->kind == PINBALL_EV_SIGNAL) {
		memcpy(bytes, e->signal.siginfo, e->signal.siginfo_len);
		copy->signal.siginfo = bytes;
	}
	return copy;
}

static void finish_stream(struct pinball_feed *f, struct feed_stream *s, int state, const char *why)
{
	if (state == FEED_FAILED && !__atomic_load_n(&f->failed, __ATOMIC_ACQUIRE)) {
		snprintf(f->err, sizeof f->err, "%s", why);
		__atomic_store_n(&f->failed, 1, __ATOMIC_RELEASE);
	}
	__atomic_store_n(&s->state, state, __ATOMIC_RELEASE);
	__atomic_add_fetch(&s->seq, 1, __ATOMIC_SEQ_CST);
	rt_futex_wake(&s->seq, INT_MAX);
}

/* Decodes the stream's next record into a block: 1, 0 at the end, -1 (stream finished). */
static int produce(struct pinball_feed *f, struct feed_stream *s, void **item)
{
	bool schedule = s == &f->streams[f->nevents];
	struct pinball_event ev;
	struct pinball_slice slice;
	int got =
	    schedule ? pinball_next_slice(s->cursor, &slice) : pinball_next_event(s->cursor, &ev);
	if (got <= 0) {
		finish_stream(f, s, got == 0 ? FEED_ENDED : FEED_FAILED,
			      pinball_cursor_error(s->cursor));
		return got;
	}
	if (schedule) {
		struct pinball_slice *copy = malloc(sizeof *copy);
		if (copy)
			*copy = slice;
		*item = copy;
	} else {
		*item = flatten(&ev);
	}
	if (!*item) {
		finish_stream(f, s, FEED_FAILED, "pinball feed: out of memory");
		return -1;
	}
	return 1;
}

/* Fills every ring it can; true when it queued anything. */
static bool fill_rings(struct pinball_feed *f, bool *all_done)
{
	bool progress = false;
	*all_done = true;
	for (size_t i = 0; i <= f->nevents; i++) {
		struct feed_stream *s = &f->streams[i];
		while (s->state == FEED_RUNNING &&
		       s->tail - __atomic_load_n(&s->head, __ATOMIC_ACQUIRE) <= s->mask) {
			void *item;
			if (produce(f, s, &item) <= 0)
				break;
			free(s->ring[s->tail & s->mask]); /* given back by the consumer */
			s->ring[s->tail & s->mask] = item;
			__atomic_store_n(&s->tail, s->tail + 1, __ATOMIC_RELEASE);
			__atomic_add_fetch(&s->seq, 1, __ATOMIC_SEQ_CST);
			if (__atomic_load_n(&s->sleeping, __ATOMIC_SEQ_CST))
				rt_futex_wake(&s->seq, 1);
			progress = true;
		}
		if (s->state == FEED_RUNNING)
			*all_done = false;
	}
	return progress;
}

static void *producer(void *arg)
{
	struct pinball_feed *f = arg;
	while (!__atomic_load_n(&f->stop, __ATOMIC_ACQUIRE)) {
		int space = __atomic_load_n(&f->space, __ATOMIC_SEQ_CST);
		bool all_done;
		if (fill_rings(f, &all_done))
			continue;
		if (all_done)
			break;
		__atomic_store_n(&f->sleeping, 1, __ATOMIC_SEQ_CST);
		if (__atomic_load_n(&f->space, __ATOMIC_SEQ_CST) == space &&
		    !__atomic_load_n(&f->stop, __ATOMIC_SEQ_CST))
			rt_futex_wait(&f->space, space);
		__atomic_store_n(&f->sleeping, 0, __ATOMIC_SEQ_CST);
	}
	return NULL;
}

static int open_stream(struct pinball_feed *f, struct feed_stream *s, const char *part,
		       uint32_t tid, unsigned depth, char *err)
{
	unsigned size = 2;
	while (size < depth)
		size <<= 1;
	s->tid = tid;
	s->mask = size - 1;
	if (!(s->ring = calloc(size, sizeof *s->ring))) {
		snprintf(err, PINBALL_ERR_MAX, "pinball feed: out of memory");
		return -1;
	}
	return (s->cursor = pinball_cursor_open(f->reader, part, err)) ? 0 : -1;
}

static int compare_tids(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return (x > y) - (x < y);
}

struct pinball_feed *pinball_feed_start(const char *basename, unsigned depth,
					char err[PINBALL_ERR_MAX])
{
	struct pinball_feed *f = calloc(1, sizeof *f);
	if (!f) {
		snprintf(err, PINBALL_ERR_MAX, "pinball feed: out of memory");
		return NULL;
	}
	if (!(f->reader = pinball_reader_open(basename, err)))
		goto fail;
	size_t n = pinball_reader_event_tids(f->reader, NULL, 0);
	uint32_t *tids = calloc(n + 1, sizeof *tids);
	f->streams = calloc(n + 1, sizeof *f->streams);
	if (!tids || !f->streams) {
		free(tids);
		snprintf(err, PINBALL_ERR_MAX, "pinball feed: out of memory");
		goto fail;
	}
	pinball_reader_event_tids(f->reader, tids, n);
	qsort(tids, n, sizeof *tids, compare_tids);
	f->nevents = n;
	int ok = 0;
	for (size_t i = 0; ok == 0 && i < n; i++) {
		char part[32];
		snprintf(part, sizeof part, "events.%u", tids[i]);
		ok = open_stream(f, &f->streams[i], part, tids[i], depth ? depth : 64, err);
	}
	free(tids);
	if (ok < 0 || open_stream(f, &f->streams[n], "schedule", 0, depth ? depth : 64, err) < 0)
		goto fail;
	int e = pthread_create(&f->thread, NULL, producer, f);
	f->started = e == 0;
	if (e) {
		snprintf(err, PINBALL_ERR_MAX, "pinball feed: cannot start its thread: %s",
			 strerror(e));
		goto fail;
	}
	return f;
fail:
	pinball_feed_stop(f);
	return NULL;
}

void pinball_feed_stop(struct pinball_feed *f)
{
	if (!f)
		return;
	if (f->started) {
		__atomic_store_n(&f->stop, 1, __ATOMIC_SEQ_CST);
		__atomic_add_fetch(&f->space, 1, __ATOMIC_SEQ_CST);
		rt_futex_wake(&f->space, 1);
		pthread_join(f->thread, NULL);
	}
	for (size_t i = 0; f->streams && i <= f->nevents; i++) {
		struct feed_stream *s = &f->streams[i];
		for (uint32_t k = 0; s->ring && k <= s->mask; k++)
			free(s->ring[k]);
		free(s->ring);
		pinball_cursor_close(s->cursor);
	}
	free(f->streams);
	pinball_reader_close(f->reader);
	free(f);
}

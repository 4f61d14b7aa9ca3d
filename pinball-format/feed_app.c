/* The consumer side of the feed. Runs on app threads: atomics and raw futex calls only. */
#include <linux/futex.h>

#include "feed_internal.h"
#include "pinball_feed.h"
#include "rt_syscall.h"

static void futex_wait(int *word, int expected)
{
	rt_syscall4(SYS_futex, (long)word, FUTEX_WAIT_PRIVATE, expected, 0);
}

static void futex_wake(int *word)
{
	rt_syscall3(SYS_futex, (long)word, FUTEX_WAKE_PRIVATE, 1);
}

int pinball_feed_stream(const struct pinball_feed *f, uint32_t tid)
{
	size_t lo = 0, hi = f->nevents;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (f->streams[mid].tid == tid)
			return (int)mid;
		if (f->streams[mid].tid < tid)
			lo = mid + 1;
		else
			hi = mid;
	}
	return -1;
}

/* Gives the held slot back to the producer. */
static void give_back(struct pinball_feed *f, struct feed_stream *s)
{
	if (!s->held)
		return;
	s->held = false;
	__atomic_store_n(&s->head, s->head + 1, __ATOMIC_RELEASE);
	__atomic_add_fetch(&f->space, 1, __ATOMIC_SEQ_CST);
	if (__atomic_load_n(&f->sleeping, __ATOMIC_SEQ_CST))
		futex_wake(&f->space);
}

/* Holds the next item of a stream, waiting for the producer: 1, 0 ended, -1 failed. */
static int next(struct pinball_feed *f, struct feed_stream *s, void **item)
{
	give_back(f, s);
	for (;;) {
		int seq = __atomic_load_n(&s->seq, __ATOMIC_SEQ_CST);
		uint32_t tail = __atomic_load_n(&s->tail, __ATOMIC_ACQUIRE);
		if (s->head != tail) {
			*item = s->ring[s->head & s->mask];
			s->held = true;
			return 1;
		}
		int state = __atomic_load_n(&s->state, __ATOMIC_ACQUIRE);
		if (state != FEED_RUNNING)
			return state == FEED_ENDED ? 0 : -1;
		__atomic_store_n(&s->sleeping, 1, __ATOMIC_SEQ_CST);
		if (__atomic_load_n(&s->seq, __ATOMIC_SEQ_CST) == seq)
			futex_wait(&s->seq, seq);
		__atomic_store_n(&s->sleeping, 0, __ATOMIC_SEQ_CST);
	}
}

int pinball_feed_next_event(struct pinball_feed *f, int stream, struct pinball_event **ev)
{
	if (stream < 0 || (size_t)stream >= f->nevents)
		return -1;
	return next(f, &f->streams[stream], (void **)ev);
}

int pinball_feed_next_slice(struct pinball_feed *f, struct pinball_slice *out)
{
	struct feed_stream *s = &f->streams[f->nevents];
	struct pinball_slice *slice;
	int got = next(f, s, (void **)&slice);
	if (got == 1) {
		*out = *slice;
		give_back(f, s);
	}
	return got;
}

const char *pinball_feed_error(const struct pinball_feed *f)
{
	return __atomic_load_n(&f->failed, __ATOMIC_ACQUIRE) ? f->err : "";
}

#include "record_queue.h"

#include <string.h>

#include "jit_messages.h"

#include "rt_alloc.h"
#include "rt_mutex.h"
#include "rt_string.h"
#include "rt_syscall.h"

enum {
	QUEUE_LIMIT = 64 << 20,
	/* A sleeping writer is woken once this much waits, or for a BEGIN (its files show at
	 * once that a pinball is being written), a FINISH or an ABORT (which the producer
	 * waits for): a wake-up at every record cost the app's threads a futex system call
	 * each (sort --parallel=2: 6,500 syscall records), for no gain. */
	WAKE_BYTES = 1 << 20,
	PAGE_SIZE = 4096,
};

static rt_mutex lock;
static struct record *head, *tail;
static int queued_seq;	    /* futex: bumps when something is queued */
static int writer_sleeps;   /* the writer waits on queued_seq */
static int pushers_wait;    /* producers waiting on drained_seq */
static int drained_seq;	    /* futex: bumps when bytes are released */
static size_t queued_bytes; /* atomic */
static int done_seq;	    /* futex: bumps when a FINISH completed */
static int abort_now;	    /* set by record_queue_abort_now */
static int aborted;	    /* futex: the writer dropped the pinball */
static char done_error[PINBALL_ERR_MAX];
static char done_written[640];

struct record *record_new(enum record_kind kind, size_t extra)
{
	struct record *r = rt_calloc(1, sizeof *r + extra);
	if (r) {
		r->kind = kind;
		r->size = sizeof *r + extra;
	}
	return r;
}

struct record *record_new_page(void)
{
	struct record *r = must_new(REC_PAGE, 0);
	if (!(r->page = rt_alloc_page()))
		jit_fatal("out of memory while recording");
	r->size += PAGE_SIZE;
	return r;
}

void record_discard(struct record *r)
{
	rt_free_page(r->page);
	rt_free(r);
}

void record_push(struct record *r)
{
	for (;;) { /* bound the memory held by records in flight */
		int seen = __atomic_load_n(&drained_seq, __ATOMIC_ACQUIRE);
		if (__atomic_load_n(&queued_bytes, __ATOMIC_ACQUIRE) < QUEUE_LIMIT)
			break;
		__atomic_add_fetch(&pushers_wait, 1, __ATOMIC_SEQ_CST);
		if (__atomic_load_n(&queued_bytes, __ATOMIC_SEQ_CST) >= QUEUE_LIMIT)
			rt_futex_wait(&drained_seq, seen);
		__atomic_sub_fetch(&pushers_wait, 1, __ATOMIC_SEQ_CST);
	}
	size_t queued = __atomic_add_fetch(&queued_bytes, r->size, __ATOMIC_ACQ_REL);
	/* Read before r is queued: from then on the writer may write it out and free it (a
	 * large record's mapping gone, a fault in the app's thread, seen once in a few
	 * hundred recordings of tests/apps/main_thread_exits). */
	bool urgent = r->kind == REC_BEGIN || r->kind == REC_FINISH || r->kind == REC_ABORT ||
		      queued >= WAKE_BYTES;
	r->next = NULL;
	rt_mutex_lock(&lock);
	if (tail)
		tail->next = r;
	else
		head = r;
	tail = r;
	rt_mutex_unlock(&lock);
	__atomic_add_fetch(&queued_seq, 1, __ATOMIC_SEQ_CST);
	if (urgent && __atomic_load_n(&writer_sleeps, __ATOMIC_SEQ_CST))
		rt_futex_wake(&queued_seq, 1);
}

struct record *record_pop_all(void)
{
	for (;;) {
		int seen = __atomic_load_n(&queued_seq, __ATOMIC_ACQUIRE);
		rt_mutex_lock(&lock);
		struct record *list = head;
		head = tail = NULL;
		rt_mutex_unlock(&lock);
		if (list || record_queue_abort_requested())
			return list;
		/* (A producer that queued after `seen` changed queued_seq: the wait returns.) */
		__atomic_store_n(&writer_sleeps, 1, __ATOMIC_SEQ_CST);
		rt_futex_wait(&queued_seq, seen);
		__atomic_store_n(&writer_sleeps, 0, __ATOMIC_SEQ_CST);
	}
}

void record_release(struct record *r)
{
	__atomic_sub_fetch(&queued_bytes, r->size, __ATOMIC_SEQ_CST);
	record_discard(r);
	__atomic_add_fetch(&drained_seq, 1, __ATOMIC_SEQ_CST);
	if (__atomic_load_n(&pushers_wait, __ATOMIC_SEQ_CST))
		rt_futex_wake(&drained_seq, 1 << 30);
}

void record_queue_report_done(const char *err, const char *written)
{
	rt_strlcpy(done_error, err, sizeof done_error);
	rt_strlcpy(done_written, written, sizeof done_written);
	__atomic_add_fetch(&done_seq, 1, __ATOMIC_RELEASE);
	rt_futex_wake(&done_seq, 1 << 30);
}

const char *record_queue_wait_done(void)
{
	static int consumed;
	while (__atomic_load_n(&done_seq, __ATOMIC_ACQUIRE) == consumed)
		rt_futex_wait(&done_seq, consumed);
	consumed++;
	return done_error;
}

const char *record_queue_written(void)
{
	return done_written;
}

void record_queue_abort_now(unsigned ms)
{
	__atomic_store_n(&abort_now, 1, __ATOMIC_RELEASE);
	__atomic_add_fetch(&queued_seq, 1, __ATOMIC_RELEASE);
	rt_futex_wake(&queued_seq, 1);
	if (!__atomic_load_n(&aborted, __ATOMIC_ACQUIRE))
		rt_futex_wait_ms(&aborted, 0, ms);
}

bool record_queue_abort_requested(void)
{
	return __atomic_load_n(&abort_now, __ATOMIC_ACQUIRE);
}

void record_queue_report_aborted(void)
{
	__atomic_store_n(&aborted, 1, __ATOMIC_RELEASE);
	rt_futex_wake(&aborted, 1 << 30);
}

struct record *must_new(enum record_kind kind, size_t extra)
{
	struct record *r = record_new(kind, extra);
	if (!r)
		jit_fatal("out of memory while recording");
	return r;
}

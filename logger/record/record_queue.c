#include "record_queue.h"

#include <string.h>

#include "jit_messages.h"

#include "rt_alloc.h"
#include "rt_mutex.h"
#include "rt_syscall.h"

enum { QUEUE_LIMIT = 64 << 20 };

static rt_mutex lock;
static struct record *head, *tail;
static int queued_seq;	    /* futex: bumps when something is queued */
static int drained_seq;	    /* futex: bumps when bytes are released */
static size_t queued_bytes; /* atomic */
static int done_seq;	    /* futex: bumps when a FINISH completed */
static char done_error[PINBALL_ERR_MAX];

struct record *record_new(enum record_kind kind, size_t extra)
{
	struct record *r = rt_calloc(1, sizeof *r + extra);
	if (r) {
		r->kind = kind;
		r->size = sizeof *r + extra;
	}
	return r;
}

void record_push(struct record *r)
{
	for (;;) { /* bound the memory held by records in flight */
		int seen = __atomic_load_n(&drained_seq, __ATOMIC_ACQUIRE);
		if (__atomic_load_n(&queued_bytes, __ATOMIC_ACQUIRE) < QUEUE_LIMIT)
			break;
		rt_futex_wait(&drained_seq, seen);
	}
	__atomic_add_fetch(&queued_bytes, r->size, __ATOMIC_ACQ_REL);
	r->next = NULL;
	rt_mutex_lock(&lock);
	if (tail)
		tail->next = r;
	else
		head = r;
	tail = r;
	rt_mutex_unlock(&lock);
	__atomic_add_fetch(&queued_seq, 1, __ATOMIC_RELEASE);
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
		if (list)
			return list;
		rt_futex_wait(&queued_seq, seen);
	}
}

void record_release(struct record *r)
{
	__atomic_sub_fetch(&queued_bytes, r->size, __ATOMIC_ACQ_REL);
	rt_free(r);
	__atomic_add_fetch(&drained_seq, 1, __ATOMIC_RELEASE);
	rt_futex_wake(&drained_seq, 1 << 30);
}

void record_queue_report_done(const char *err)
{
	size_t n = strlen(err);
	if (n >= sizeof done_error)
		n = sizeof done_error - 1;
	memcpy(done_error, err, n);
	done_error[n] = '\0';
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

struct record *must_new(enum record_kind kind, size_t extra)
{
	struct record *r = record_new(kind, extra);
	if (!r)
		jit_fatal("out of memory while recording");
	return r;
}

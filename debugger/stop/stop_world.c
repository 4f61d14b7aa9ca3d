/* A stop: the thread that caught it stops the world from its callout, tells the stub, and
 * serves the stub's requests while it holds the world (and the runtime's lock); the others
 * wait at block boundaries, in syscalls, or parked because gdb holds them. */
#include <errno.h>
#include <limits.h>
#include <linux/futex.h>
#include <time.h>

#include "rt_syscall.h"
#include "stop_internal.h"

/* How long a dying process waits for the stub to tell gdb (the stub answers within
 * milliseconds; this bounds a stub that is stuck on a gdb that stopped reading). */
static const long END_WAIT_SECONDS = 5;

void dbg_publish(const struct dbg_stop *s, bool wait_sent)
{
	dbg_channel.stop = *s;
	int seq = __atomic_add_fetch(&dbg_channel.stop_seq, 1, __ATOMIC_ACQ_REL);
	uint64_t one = 1;
	rt_write(dbg_channel.event_fd, &one, sizeof one);
	struct timespec wait = {END_WAIT_SECONDS, 0};
	for (;;) {
		int sent = __atomic_load_n(&dbg_channel.stop_sent, __ATOMIC_ACQUIRE);
		if (!wait_sent || sent == seq ||
		    rt_syscall4(SYS_futex, (long)&dbg_channel.stop_sent, FUTEX_WAIT_PRIVATE, sent,
				(long)&wait) == -ETIMEDOUT)
			return;
	}
}

/* Carries out the stub's requests until one lets the world go. */
static void serve(const struct jit_callout *c)
{
	for (;;) {
		int seq = __atomic_load_n(&dbg_channel.req_seq, __ATOMIC_ACQUIRE);
		if (seq == dbg_channel.done_seq) {
			rt_futex_wait(&dbg_channel.req_seq, seq);
			continue;
		}
		bool more = dbg_execute(c, &dbg_channel.req);
		__atomic_store_n(&dbg_channel.done_seq, seq, __ATOMIC_RELEASE);
		rt_futex_wake(&dbg_channel.done_seq, INT_MAX);
		if (!more)
			return;
	}
}

void dbg_stop(const struct jit_callout *c, const struct dbg_stop *why)
{
	struct dbg_thread *ts = dbg_thread_of(c->thread);
	if (!dbg_channel.connected || dbg.disabled)
		return;
	jit_stop_the_world(c->thread);
	__atomic_store_n(&dbg.interrupt, 0, __ATOMIC_RELEASE);
	/* A step another thread was taking ends with this stop: gdb resumes it anew. */
	for (uint32_t i = 0; i < DBG_MAX_THREADS; i++)
		if (dbg.threads[i])
			dbg.threads[i]->step = STEP_NONE;
	ts->parked = true;
	ts->at_pc = c->pc;
	ts->at_icount = jit_callout_icount(c);
	struct dbg_stop s = *why;
	s.thread = ts->id;
	/* gdb reads the libraries when it connects: the first stop reports no change (a
	 * library event there would make gdb skip its set-up). */
	static bool first_done;
	s.libraries_changed = first_done && dbg.images != dbg.images_reported;
	dbg.images_reported = dbg.images;
	first_done = true;
	dbg_publish(&s, false);
	serve(c);
	ts->parked = false;
	ts->skip_pc = c->pc;
	ts->skip_icount = ts->at_icount;
}

static void wait_released(void *arg)
{
	struct dbg_thread *ts = arg;
	for (;;) {
		int gen = __atomic_load_n(&dbg.hold_gen, __ATOMIC_ACQUIRE);
		if (!__atomic_load_n(&ts->hold, __ATOMIC_ACQUIRE))
			return;
		rt_futex_wait(&dbg.hold_gen, gen);
	}
}

void dbg_park_held(const struct jit_callout *c, struct dbg_thread *ts)
{
	if (c) {
		ts->parked = true;
		ts->at_pc = c->pc;
		ts->at_icount = jit_callout_icount(c);
	}
	jit_wait_unlocked(wait_released, ts);
	ts->parked = false;
	if (c) {
		ts->skip_pc = c->pc;
		ts->skip_icount = ts->at_icount;
	}
}

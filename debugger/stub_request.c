/* Requests to the stopped app thread: the stub writes one, bumps req_seq and waits for
 * done_seq (debug_channel.h); and the stops the app threads publish. */
#include <limits.h>
#include <poll.h>
#include <string.h>
#include <unistd.h>

#include "rt_syscall.h"
#include "stub_internal.h"

struct dbg_request *stub_begin(enum dbg_op op)
{
	struct dbg_request *r = &dbg_channel->req;
	r->op = op;
	r->thread = 0;
	r->addr = r->len = 0;
	r->kind = 0;
	r->insert = false;
	r->nactions = 0;
	r->mode = DBG_RUN_NORMAL;
	r->goal = (struct dbg_goal){0};
	r->text[0] = '\0';
	r->failed = false;
	r->out_len = 0;
	return r;
}

bool stub_call(void)
{
	int seq = __atomic_add_fetch(&dbg_channel->req_seq, 1, __ATOMIC_ACQ_REL);
	rt_futex_wake_shared(&dbg_channel->req_seq, INT_MAX);
	for (;;) {
		int done = __atomic_load_n(&dbg_channel->done_seq, __ATOMIC_ACQUIRE);
		if (done == seq)
			break;
		rt_futex_wait_shared(&dbg_channel->done_seq, done, 0);
	}
	return !dbg_channel->req.failed;
}

bool stub_take_event(struct stub *s, bool *got)
{
	uint64_t count;
	while (read(dbg_channel->event_fd, &count, sizeof count) > 0)
		;
	int seq = __atomic_load_n(&dbg_channel->stop_seq, __ATOMIC_ACQUIRE);
	*got = seq != s->seen_seq;
	if (!*got)
		return true;
	s->seen_seq = seq;
	s->stop = dbg_channel->stop;
	bool ends = s->stop.kind == DBG_STOP_EXITED || s->stop.kind == DBG_STOP_KILLED;
	if (ends)
		stub_send_stop(s);
	else
		s->stopped = true;
	__atomic_store_n(&dbg_channel->stop_sent, seq, __ATOMIC_RELEASE);
	rt_futex_wake_shared(&dbg_channel->stop_sent, INT_MAX);
	return !ends;
}

bool stub_wait_stop(struct stub *s)
{
	struct pollfd p = {.fd = dbg_channel->event_fd, .events = POLLIN};
	for (;;) {
		bool got;
		if (!stub_take_event(s, &got))
			return false;
		if (got)
			return true;
		poll(&p, 1, -1);
	}
}

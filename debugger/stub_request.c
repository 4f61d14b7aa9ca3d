/* Requests to the stopped app thread: the stub writes one, bumps req_seq and waits for
 * done_seq (debug_channel.h). */
#include <limits.h>
#include <string.h>

#include "rt_syscall.h"
#include "stub_internal.h"

struct dbg_request *stub_begin(enum dbg_op op)
{
	struct dbg_request *r = &dbg_channel.req;
	r->op = op;
	r->thread = 0;
	r->addr = r->len = 0;
	r->kind = 0;
	r->insert = false;
	r->nactions = 0;
	r->text[0] = '\0';
	r->failed = false;
	r->out_len = 0;
	return r;
}

bool stub_call(void)
{
	int seq = __atomic_add_fetch(&dbg_channel.req_seq, 1, __ATOMIC_ACQ_REL);
	rt_futex_wake(&dbg_channel.req_seq, INT_MAX);
	for (;;) {
		int done = __atomic_load_n(&dbg_channel.done_seq, __ATOMIC_ACQUIRE);
		if (done == seq)
			break;
		rt_futex_wait(&dbg_channel.done_seq, done);
	}
	return !dbg_channel.req.failed;
}

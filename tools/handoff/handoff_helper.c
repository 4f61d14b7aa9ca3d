/* The helper thread (driver side, glibc): it never runs app code. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "handoff_internal.h"
#include "jit.h"
#include "rt_syscall.h"

static void *helper(void *arg)
{
	struct handoff *h = arg;
	struct handoff_buffer *b;
	while ((b = handoff_next(h))) {
		h->ops.consume(b, h->ops.arg);
		handoff_recycle(h, b);
	}
	h->ops.finish(h->ops.arg);
	__atomic_store_n(&h->done, 1, __ATOMIC_RELEASE);
	rt_futex_wake(&h->done, 1 << 30);
	return NULL;
}

struct handoff *handoff_start(const struct handoff_ops *ops, char *err, size_t errlen)
{
	struct handoff *h = calloc(1, sizeof *h);
	if (!h) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	h->ops = *ops;
	h->pid = getpid();
	int e = jit_helper_thread_start(helper, h);
	if (e) {
		snprintf(err, errlen, "cannot start a helper thread: %s", strerror(e));
		free(h);
		return NULL;
	}
	return h;
}

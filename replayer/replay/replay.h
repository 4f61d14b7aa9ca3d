/* Replaying a region: the JIT client that stands in for the kernel and the CPU's
 * non-deterministic instructions, following the recorded events, and judges the result.
 * Runs on the app thread (TLS-free). */
#ifndef REPLAYER_REPLAY_H
#define REPLAYER_REPLAY_H

#include <stdbool.h>
#include <stddef.h>

#include "replay_input.h"

struct jit_thread;

/* Told what the replay does (relogging): each recorded event as the replay consumes it,
 * and the end of the replay (on the thread that ends it, before the verdict). */
struct replay_observer {
	void (*event)(uint32_t tid, const struct replay_event *e, void *arg);
	void (*end)(struct jit_thread *t, uint64_t icount, void *arg);
	void *arg;
};

struct replay_options {
	bool echo; /* write what the app wrote to fds 1 and 2 (-replay:echo) */
	const struct replay_observer *observer; /* NULL: none */
};

/* Registers the client; `in` must stay alive. The thread jit_run_state starts plays the
 * input's first thread. False when out of memory or per-thread slots. */
bool replay_start(const struct replay_input *in, const struct replay_options *o);

/* `monitor status` under -appdebug (TLS-free): where the replay is. */
void replay_debug_status(char *out, size_t size);

#endif

/* Replaying a region: the JIT client that stands in for the kernel and the CPU's
 * non-deterministic instructions, following the recorded events, and judges the result.
 * Runs on the app thread (TLS-free). */
#ifndef REPLAYER_REPLAY_H
#define REPLAYER_REPLAY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

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
	/* A debugger's (TLS-free; NULL: none). On the first thread before the others of the
	 * region's start are made: the checkpoint of the start. */
	void (*region_start)(struct jit_thread *first);
	/* Whether the output of thread `number` at `icount` is echoed (false for a stretch
	 * replayed again). */
	bool (*output_new)(uint32_t number, uint64_t icount);
	/* The replay ends where the recorded app died of signal sig; t, the last thread to
	 * finish, stands where it died (the one that held the baton). */
	void (*death)(struct jit_thread *t, int sig);
};

/* Registers the client; `in` must stay alive. The thread jit_run_state starts plays the
 * input's first thread. False when out of memory or per-thread slots. */
bool replay_start(const struct replay_input *in, const struct replay_options *o);

/* Whether the replay runs with no budget check (one thread, no signal, an end inside a
 * syscall): then the driver must run replay_guard_watch as the JIT's watchdog, which stops
 * a thread that runs past its recorded end (a pinball that leads the replay astray). */
bool replay_guarded(void);
struct jit_thread *replay_guard_watch(void *arg);

/* `monitor status` under -appdebug (TLS-free): where the replay is. */
void replay_debug_status(char *out, size_t size);
/* Under -appdebug (TLS-free): thread `number`'s count at the region's end; false when the
 * region has no such thread. */
bool replay_debug_thread_end(uint32_t number, uint64_t *icount);

#endif

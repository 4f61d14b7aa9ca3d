/* Inside the replay client: the replayed threads and the schedule they follow. App
 * threads, TLS-free. */
#ifndef REPLAYER_REPLAY_INTERNAL_H
#define REPLAYER_REPLAY_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include "instrument.h"
#include "replay.h"

/* A replayed thread: the recorded one it plays, and where it is. */
struct rthread {
	const struct replay_thread *rt;
	size_t next;		   /* its next recorded event */
	size_t signal_at;	   /* its next signal event at or after `next` (next_signal) */
	bool begun;		   /* its first block ran (mask set, a start syscall returned) */
	bool has_turn;		   /* the current slice of the schedule is its own */
	uint64_t slice_end;	   /* with has_turn: the count where that slice ends */
	size_t slices_left;	   /* of the schedule's slices, those still to come for it */
	bool finished;		   /* at its recorded end (or exited): it runs no more */
	bool exited;		   /* left the region through exit(2) */
	struct jit_thread *thread; /* the JIT thread that plays it (NULL: none yet) */
};

struct replay_state {
	const struct replay_input *in;
	struct replay_options opt;
	struct rthread *threads; /* parallel to in->threads */
	size_t *slice_thread;	 /* index into threads of each slice's tid */
	int cur;		 /* the current slice (a futex word) */
	size_t finished;
	uint64_t syscalls;
	int state_slot, budget_slot;
	/* One thread, no signal to deliver, and an end inside a syscall (its exit, say): no
	 * budget but the first block's; a watchdog (replay_guard_watch) guards against running
	 * past the end for ever (a pinball that leads the replay astray). */
	bool guard_only;
	bool began;		 /* the first thread's first block ran */
	struct rthread *pending; /* the thread the next thread_start binds */
};
extern struct replay_state rp;

_Noreturn void diverged(const struct rthread *th, uint64_t icount, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

struct rthread *rthread_of(const struct jit_thread *t);

/* The thread's next event, which must be of `kind` at icount; else a divergence. */
const struct replay_event *expect_event(struct rthread *th, uint64_t icount,
					enum pinball_event_kind kind, const char *what);

/* replay_threads.c */
bool replay_threads_setup(void);
void replay_thread_bind(struct jit_thread *t);
/* At a block start (the budget check's callout): waits for the thread's turn, delivers a
 * signal due there, ends the thread or its slice, and sets the budget for what is next. */
void replay_thread_block_start(const struct jit_callout *c);
/* With guard_only: the budget check's callout, in the blocks translated before the thread
 * began (the first of them begins it). */
void replay_thread_guard(const struct jit_callout *c);
/* At a safe point the watchdog asked for: a guarded thread past its end diverged. */
void replay_thread_guard_stop(struct jit_thread *t, uint64_t icount);
/* Ends the thread at its recorded end (or exit): compares its state; the verdict when it
 * is the last. With compare_flags false the flags are not compared. */
void replay_thread_finish(struct jit_thread *t, struct rthread *th, uint64_t icount,
			  bool compare_flags);
/* Waits for ever (a finished thread that must not run on). */
_Noreturn void replay_thread_park(void);
/* Hands the turn on when the thread's slice ends at icount. */
void replay_thread_slice_done(struct rthread *th, uint64_t icount);
/* A block whose flags may be read at its start (the end comparison checks them there). */
void replay_note_flags_live(uint64_t pc);
/* The number of threads not finished. */
size_t replay_threads_running(void);

/* replay.c: a recorded syscall injected (result, writes, echo) for thread t. */
long replay_inject_syscall(struct jit_thread *t, struct rthread *th, uint64_t icount, long nr,
			   const long a[6], const struct replay_event *e);

#endif

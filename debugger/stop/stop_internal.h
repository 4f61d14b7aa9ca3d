/* The debugger's per-thread state and its breakpoints and watchpoints. App-thread code;
 * changed only by the thread that holds the world stopped, or by a thread about itself. */
#ifndef STOP_INTERNAL_H
#define STOP_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include "debug_channel.h"
#include "debug_stop.h"

enum step_state {
	STEP_NONE,
	STEP_ARMED, /* runs one instruction from (step_pc, step_icount), or from its next block */
	STEP_ONE,   /* that instruction runs alone: the next block start is the stop */
};

struct dbg_thread {
	struct jit_thread *jt;
	uint32_t id; /* gdb's */
	/* gdb keeps it stopped while others run: it parks at its next block start (or when
	 * its syscall returns) until a resume names it. */
	bool hold;
	/* Parked in one of the debugger's callouts, before the instruction at (at_pc, at_icount):
	 * gdb may change its rip there. */
	bool parked;
	uint64_t at_pc, at_icount;
	bool initial; /* stops before its first instruction */
	enum step_state step;
	bool step_anywhere; /* armed where it was not parked: its next block start */
	uint64_t step_pc, step_icount;
	struct dbg_stop step_reason; /* reported when the step ends (a watchpoint's) */
	/* Where it last stopped or armed a step: a breakpoint or watchpoint there is the one
	 * already reported, not a new hit, until the thread has moved on. */
	uint64_t skip_pc, skip_icount;
	int pass_signal; /* the signal gdb gives it as it resumes */
};

struct debugger {
	const struct debug_hooks *hooks;
	void (*at_end)(void);
	int budget_slot;
	struct dbg_thread *threads[DBG_MAX_THREADS];
	int hold_gen;	/* futex word held threads sleep on */
	bool hold_new;	/* threads born now are held (gdb runs others only) */
	int interrupt;	/* gdb asked for a stop */
	bool disabled;	/* a forked child: never stops */
	int points_gen; /* dbg_channel->points.gen of this process's translations */
	uint32_t images, images_reported;
	/* The last resume's: how hits are treated, and where it ends (reverse execution). */
	enum dbg_run_mode mode;
	struct dbg_goal goal;
	uint64_t next_mark; /* the total count where the next periodic checkpoint is due */
	bool abandoned;	    /* the stub gave this copy of the replay up: it ends */
	int death_signal;   /* a replay ends where the recorded app died of it */
};

extern struct debugger dbg;

struct dbg_thread *dbg_thread_of(const struct jit_thread *t);
struct dbg_thread *dbg_thread_by_id(uint32_t id);
/* The budget check is on when the thread must look at its state at its next block. */
void dbg_update_budget(struct dbg_thread *ts);

/* stop_world.c: stops the world at callout c, reports `why`, and serves the stub until it
 * resumes the app (the resume sets every thread's hold and step). */
void dbg_stop(const struct jit_callout *c, const struct dbg_stop *why);
/* A held thread parks at callout c (the runtime's lock released) until a resume names it;
 * c NULL: in a hook (its rip stays as it is). */
void dbg_park_held(const struct jit_callout *c, struct dbg_thread *ts);
/* The budget slot: far below zero while the thread must look at its state at every block
 * start (no count given back by the JIT brings it up to zero), far above it otherwise. */
#define DBG_BUDGET_ON ((uint64_t) - (1ll << 40))
#define DBG_BUDGET_OFF ((uint64_t)1 << 62)
/* Publishes a stop or an end to the stub; waits until it is sent when `wait_sent`. */
void dbg_publish(const struct dbg_stop *s, bool wait_sent);

/* stop_requests.c: one request of the stub, on the stopper c. Returns false when it lets
 * the world go (resume, detach). */
bool dbg_execute(const struct jit_callout *c, struct dbg_request *r);

/* breakpoints.c */
bool dbg_breakpoint_at(uint64_t pc);
bool dbg_set_breakpoint(uint64_t pc, bool insert);
bool dbg_set_watch(uint64_t addr, uint64_t len, enum dbg_stop_kind kind, bool insert);
void dbg_clear_all(void);
/* A copy of the replay made from a checkpoint translates again if the points changed since
 * the checkpoint was taken. */
void dbg_points_sync(void);

/* checkpoints.c (reverse execution, under the replayer). The total count: every thread's
 * count added up (the stopper's at its callout): the moment, as one thread runs at a time. */
uint64_t dbg_total_icount(void);
/* A checkpoint of this moment (callout c at a block start, or the first thread before its
 * first instruction, c->block_remaining 0): a copy of the process that waits. Returns in
 * this process (false: none was taken), and, true, in every copy the stub later asks for,
 * which is then the live one (dbg.arrived). */
bool dbg_checkpoint(const struct jit_callout *c, bool extra);
/* Whether the periodic checkpoint is due for the stopper at total count `total`: the table
 * has none in its interval and only one thread lives. */
bool dbg_checkpoint_due(uint64_t total);

/* watch_access.c: whether instruction i of a block may touch memory (it gets a check), and
 * whether the instruction at the callout hits a watchpoint (*hit: kind and address). */
bool dbg_insn_accesses_memory(const struct jit_block *b, size_t i);
bool dbg_watch_hit(const struct jit_callout *c, struct dbg_stop *hit);

#endif

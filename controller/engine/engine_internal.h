/* The alarm engine's shared state. One engine per process; all of it app-thread code. */
#ifndef ENGINE_INTERNAL_H
#define ENGINE_INTERNAL_H

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>

#include "control_engine.h"
#include "instrument.h"
#include "rt_mutex.h"
#include "rt_port_file.h"

enum { ENGINE_MAX_THREADS = CONTROL_TID_MAX + 1, ENGINE_MAX_WATCHES = 64 };

/* One chain as one thread runs it. */
struct engine_run {
	uint32_t alarm; /* index of the armed alarm */
	bool active;	/* armed (its waitfor satisfied) and not finished */
	bool finished;
	uint64_t matches;     /* of the armed alarm, when not global */
	uint64_t iterations;  /* completed runs of the chain */
	uint64_t fire_at;     /* icount / uniform: the icount of the next boundary */
	uint64_t deadline_ns; /* timeout: CLOCK_MONOTONIC deadline */
	/* exit_func: the outermost activation of the chain's exit_func function, tracked
	 * from the thread's start so that "outermost" holds even for calls made before the
	 * alarm was armed */
	uint32_t func_ref; /* which alarm's function (index in refs) */
	bool in_func;
	uint64_t func_rsp; /* rsp at entry: it points at the return address */
	uint64_t func_return_pc;
	/* uniform */
	bool uniform_inside;
	uint64_t uniform_done;
	uint64_t uniform_start; /* icount where the current sample started */
};

struct engine_thread {
	struct jit_thread *jt;
	uint32_t tid;
	struct engine_run *runs; /* one per chain */
};

/* A (chain, alarm) pair, flattened; the callout argument of instruction alarms. */
struct alarm_ref {
	uint32_t chain, alarm;
	uint64_t resolved_pc; /* address / enter_func / exit_func / pcontrol entry; 0: unknown */
	uint32_t armed;	      /* threads that have this alarm armed */
	uint64_t global_matches;
	/* pattern alarms: pcs of the matching instructions translated so far (sorted) */
	uint64_t *sites;
	uint32_t nsites, sites_cap;
	bool sites_overflow; /* too many to track: arming retranslates everything */
};

struct engine {
	const struct control_spec *spec;
	control_handler handler;
	void *handler_arg;
	const char *log_path;
	int budget_slot; /* -1 when no alarm needs the budget */
	struct alarm_ref *refs;
	uint32_t *first_ref; /* per chain: index of its first alarm in refs */
	uint32_t nrefs;
	struct engine_thread *threads[ENGINE_MAX_THREADS];
	uint64_t watches[ENGINE_MAX_WATCHES]; /* return addresses of exit_func activations */
	uint32_t nwatches;
	/* An interactive event a client sent (CONTROL_EVENT_START / STOP + 1), until a thread
	 * whose interactive alarm for it is armed takes it; 0 when none. Set under `lock`. */
	int interactive_pending;
	/* The interactive listener's port file. */
	struct rt_port_file port_file;
	rt_mutex lock;
};

extern struct engine engine;

static inline struct alarm_ref *engine_ref(uint32_t chain, uint32_t alarm)
{
	return &engine.refs[engine.first_ref[chain] + alarm];
}

static inline const struct control_alarm *engine_alarm(const struct alarm_ref *r)
{
	return &engine.spec->chains[r->chain].alarms[r->alarm];
}

/* Whether alarm a, armed in et, concerns et's thread (its tid<N> modifier, if any). */
static inline bool engine_alarm_applies(const struct engine_thread *et,
					const struct control_alarm *a)
{
	return !a->has_tid || a->tid == et->tid;
}

/* engine_state.c: arming, firing, advancing chains. Called with engine.lock held. */
struct engine_thread *engine_thread_of(struct jit_thread *t);
void engine_thread_born(struct jit_thread *t, uint64_t pc);
void engine_fire(struct engine_thread *et, struct alarm_ref *r, uint64_t pc, uint64_t icount);
/* Counts one match of r in et; fires when the count is reached. */
void engine_match(struct engine_thread *et, struct alarm_ref *r, uint64_t pc, uint64_t icount);
void engine_update_budget(struct engine_thread *et, uint64_t icount_now);
bool engine_is_instruction_alarm(const struct control_alarm *a);

/* engine_match.c: the JIT client's translation-time matching and callouts. */
void engine_instrument_block(struct jit_block *b, void *arg);
void engine_on_budget(const struct jit_callout *c);

/* engine_retranslate.c: retranslating only the blocks an arming change affects. */
bool engine_is_pattern_alarm(const struct control_alarm *a);
void engine_note_site(struct alarm_ref *r, uint64_t pc);
void engine_retranslate_alarm(const struct alarm_ref *r);
void engine_retranslate_pc(uint64_t pc);

/* engine_symbols.c: resolving symbols and image+offset when images are mapped. */
void engine_image_mapped(const char *path, uint64_t start, uint64_t end, uint64_t offset,
			 void *arg);

/* engine_log.c */
void engine_log_event(const char *verb, const struct control_event_info *ev);

/* engine_port.c: the interactive listener's port file goes with the process that wrote
 * it, at any exit (TLS-free: also called on app threads). */
void engine_remove_port_file(void);
/* The JIT client's at_exit and app_dies hooks: the port file goes with the process. */
void engine_process_ends(int status, void *arg);
void engine_app_dies(struct jit_thread *t, int sig, enum jit_death_place where, void *arg);

/* engine_external.c: timeout and interactive helper threads (created at start-up). */
int engine_external_start(char *err, size_t errlen);
uint64_t engine_now_ns(void);

#endif

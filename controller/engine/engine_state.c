/* The chains' state machine: arming, matching, firing, repeat, precond, waitfor, bcast. */
#include <stdint.h>

#include <time.h>

#include "engine_internal.h"
#include "rt_alloc.h"
#include "rt_syscall.h"

struct engine engine;

static const uint64_t BUDGET_NONE = (uint64_t)1 << 62;

/* The parser's bounds keep arming's sums from wrapping around (which would fire at once):
 * a thread's count plus an icount, and the clock plus a timeout in nanoseconds. */
_Static_assert(CONTROL_COUNT_MAX < (uint64_t)1 << 62, "icount bound too large");
_Static_assert(CONTROL_TIMEOUT_MAX < ((uint64_t)1 << 62) / 1000000000ull,
	       "timeout bound too large");

uint64_t engine_now_ns(void)
{
	struct timespec ts = {0, 0};
	rt_syscall2(SYS_clock_gettime, CLOCK_MONOTONIC, (long)&ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

bool engine_is_instruction_alarm(const struct control_alarm *a)
{
	switch (a->type) {
	case CONTROL_ALARM_ICOUNT:
	case CONTROL_ALARM_UNIFORM:
	case CONTROL_ALARM_TIMEOUT:
	case CONTROL_ALARM_INTERACTIVE:
		return false;
	default:
		return true;
	}
}

struct engine_thread *engine_thread_of(struct jit_thread *t)
{
	uint32_t tid = jit_thread_id(t);
	return tid < ENGINE_MAX_THREADS ? engine.threads[tid] : NULL;
}

static void deliver(struct engine_thread *et, enum control_event event, bool bcast, uint64_t pc,
		    uint64_t icount, const struct control_alarm *alarm)
{
	struct control_event_info ev = {
	    .event = event,
	    .tid = et->tid,
	    .bcast = bcast,
	    .pc = pc,
	    .icount = icount,
	    .alarm = alarm,
	    .thread = et->jt,
	};
	engine_log_event("fired", &ev);
	if (engine.handler)
		engine.handler(&ev, engine.handler_arg);
}

static void set_armed(struct alarm_ref *r, bool on)
{
	uint32_t before = r->armed;
	r->armed = on ? before + 1 : before - 1;
	/* Instruction alarms are translated in only while armed somewhere (exit_func's are
	 * always in: its activations are followed from the start). */
	const struct control_alarm *a = engine_alarm(r);
	if ((before == 0) != (r->armed == 0) && engine_is_instruction_alarm(a) &&
	    a->type != CONTROL_ALARM_EXIT_FUNC)
		engine_retranslate_alarm(r);
}

static void arm(struct engine_thread *et, uint32_t chain, uint32_t index, uint64_t icount)
{
	struct engine_run *run = &et->runs[chain];
	if (run->active)
		set_armed(engine_ref(chain, run->alarm), false);
	struct alarm_ref *r = engine_ref(chain, index);
	const struct control_alarm *a = engine_alarm(r);
	/* Keep what outlives one arming: iterations and the tracked activation. */
	struct engine_run keep = *run;
	*run = (struct engine_run){.alarm = index,
				   .active = true,
				   .iterations = keep.iterations,
				   .in_func = keep.in_func,
				   .func_ref = keep.func_ref,
				   .func_rsp = keep.func_rsp,
				   .func_return_pc = keep.func_return_pc};
	if (a->type == CONTROL_ALARM_ICOUNT)
		run->fire_at = icount + a->u.icount;
	else if (a->type == CONTROL_ALARM_UNIFORM)
		run->fire_at = run->uniform_start = icount; /* the first sample opens at once */
	else if (a->type == CONTROL_ALARM_TIMEOUT)
		run->deadline_ns = engine_now_ns() + a->u.timeout_seconds * 1000000000ull;
	set_armed(r, true);
}

static void disarm(struct engine_thread *et, uint32_t chain)
{
	struct engine_run *run = &et->runs[chain];
	if (run->active)
		set_armed(engine_ref(chain, run->alarm), false);
	run->active = false;
}

static void chain_finished(struct engine_thread *et, uint32_t chain, uint64_t icount)
{
	et->runs[chain].finished = true;
	for (uint32_t c = 0; c < engine.spec->nchains; c++) {
		const struct control_chain *waiter = &engine.spec->chains[c];
		if (waiter->waitfor && waiter->waitfor_chain == chain && !et->runs[c].active &&
		    !et->runs[c].finished)
			arm(et, c, 0, icount);
	}
}

/* After alarm `r` fired in et: arm the next alarm of the chain, in et or (bcast) in every
 * thread, or run the chain again, or finish it. */
static void advance(struct engine_thread *et, struct alarm_ref *r, uint64_t icount)
{
	const struct control_chain *chain = &engine.spec->chains[r->chain];
	const struct control_alarm *a = engine_alarm(r);
	uint32_t next = r->alarm + 1;
	if (next == chain->nalarms) {
		struct engine_run *run = &et->runs[r->chain];
		run->iterations++;
		if (chain->repeat != CONTROL_REPEAT_FOREVER && run->iterations >= chain->repeat) {
			disarm(et, r->chain);
			chain_finished(et, r->chain, icount);
			return;
		}
		next = 0;
	}
	if (!a->bcast) {
		arm(et, r->chain, next, icount);
		return;
	}
	for (uint32_t i = 0; i < ENGINE_MAX_THREADS; i++) {
		struct engine_thread *other = engine.threads[i];
		if (other)
			arm(other, r->chain, next,
			    other == et ? icount : jit_thread_icount(other->jt));
	}
}

void control_engine_external_event(struct jit_thread *t, const struct control_alarm *alarm,
				   const char *origin, uint64_t pc, uint64_t icount)
{
	struct control_event_info ev = {.event = alarm->event,
					.tid = jit_thread_id(t),
					.pc = pc,
					.icount = icount,
					.alarm = alarm,
					.thread = t,
					.origin = origin};
	rt_mutex_lock(&engine.lock);
	engine_log_event("fired", &ev);
	if (engine.handler)
		engine.handler(&ev, engine.handler_arg);
	rt_mutex_unlock(&engine.lock);
}

void engine_fire(struct engine_thread *et, struct alarm_ref *r, uint64_t pc, uint64_t icount)
{
	const struct control_alarm *a = engine_alarm(r);
	if (a->event != CONTROL_EVENT_PRECOND && a->event != CONTROL_EVENT_NONE)
		deliver(et, a->event, a->bcast, pc, icount, a);
	advance(et, r, icount);
}

void engine_match(struct engine_thread *et, struct alarm_ref *r, uint64_t pc, uint64_t icount)
{
	const struct control_alarm *a = engine_alarm(r);
	struct engine_run *run = &et->runs[r->chain];
	if (!run->active || run->alarm != r->alarm || !engine_alarm_applies(et, a))
		return;
	uint64_t seen = a->global ? ++r->global_matches : ++run->matches;
	if (seen < a->count)
		return;
	if (a->global)
		r->global_matches = 0;
	engine_fire(et, r, pc, icount);
}

/* Uniform sampling: a start at the sample's beginning, a stop `length` later, the next
 * sample `period` after the previous one began, `count` samples in all. */
static void uniform_step(struct engine_thread *et, struct alarm_ref *r, uint64_t pc,
			 uint64_t icount)
{
	struct engine_run *run = &et->runs[r->chain];
	const struct control_alarm *a = engine_alarm(r);
	if (!run->uniform_inside) {
		run->uniform_inside = true;
		run->uniform_start = run->fire_at;
		run->fire_at = run->uniform_start + a->u.uniform.length;
		deliver(et, CONTROL_EVENT_START, a->bcast, pc, icount, a);
		return;
	}
	run->uniform_inside = false;
	run->uniform_done++;
	deliver(et, CONTROL_EVENT_STOP, a->bcast, pc, icount, a);
	if (run->uniform_done == a->u.uniform.count)
		advance(et, r, icount);
	else
		run->fire_at = run->uniform_start + a->u.uniform.period;
}

/* The budget callout: the icount-driven alarms whose boundary this block crosses. */
void engine_on_budget(const struct jit_callout *c)
{
	rt_mutex_lock(&engine.lock);
	struct engine_thread *et = engine_thread_of(c->thread);
	uint64_t counted = jit_thread_icount(c->thread); /* includes this block */
	uint64_t icount = jit_callout_icount(c);	 /* before this block */
	for (uint32_t ch = 0; et && ch < engine.spec->nchains; ch++) {
		struct engine_run *run = &et->runs[ch];
		/* A fired alarm may arm another that is due at once: loop until settled. */
		for (int guard = 0; run->active && guard < 64; guard++) {
			struct alarm_ref *r = engine_ref(ch, run->alarm);
			const struct control_alarm *a = engine_alarm(r);
			bool due = false;
			if (a->type == CONTROL_ALARM_ICOUNT || a->type == CONTROL_ALARM_UNIFORM)
				due = counted > run->fire_at;
			else if (a->type == CONTROL_ALARM_TIMEOUT)
				due = engine_now_ns() >= run->deadline_ns;
			else if (a->type == CONTROL_ALARM_INTERACTIVE) /* not another tid's */
				due = engine.interactive_pending == (int)a->event + 1 &&
				      engine_alarm_applies(et, a);
			if (!due)
				break;
			if (a->type == CONTROL_ALARM_INTERACTIVE)
				engine.interactive_pending = 0;
			if (a->type == CONTROL_ALARM_UNIFORM) {
				uniform_step(et, r, c->pc, icount);
				continue;
			}
			uint32_t before = run->alarm;
			engine_match(et, r, c->pc, icount);
			if (run->active && run->alarm == before &&
			    a->type == CONTROL_ALARM_ICOUNT) {
				/* :count<N> on icount: the next match is another N later */
				run->fire_at += a->u.icount;
			}
		}
	}
	if (et)
		engine_update_budget(et, counted);
	rt_mutex_unlock(&engine.lock);
}

void engine_update_budget(struct engine_thread *et, uint64_t counted)
{
	if (engine.budget_slot < 0)
		return;
	int64_t budget = (int64_t)BUDGET_NONE;
	for (uint32_t ch = 0; ch < engine.spec->nchains; ch++) {
		struct engine_run *run = &et->runs[ch];
		if (!run->active)
			continue;
		const struct control_alarm *a = engine_alarm(engine_ref(ch, run->alarm));
		/* (timeout and interactive: the external thread forces a check when due) */
		if (a->type == CONTROL_ALARM_ICOUNT || a->type == CONTROL_ALARM_UNIFORM) {
			int64_t left = (int64_t)(run->fire_at - counted);
			if (left < budget)
				budget = left;
		}
	}
	jit_thread_slot_set(et->jt, engine.budget_slot, (uint64_t)budget);
}

void engine_thread_born(struct jit_thread *t, uint64_t pc)
{
	rt_mutex_lock(&engine.lock);
	uint32_t tid = jit_thread_id(t);
	struct engine_thread *et = rt_calloc(1, sizeof *et);
	struct engine_run *runs = rt_calloc(engine.spec->nchains + 1, sizeof *runs);
	if (!et || !runs || tid >= ENGINE_MAX_THREADS) {
		rt_free(et);
		rt_free(runs);
		rt_mutex_unlock(&engine.lock);
		return;
	}
	et->jt = t;
	et->tid = tid;
	et->runs = runs;
	engine.threads[tid] = et;
	for (uint32_t c = 0; c < engine.spec->nchains; c++)
		if (!engine.spec->chains[c].waitfor)
			arm(et, c, 0, 0);
	engine_update_budget(et, 0);
	if (engine.spec->default_start)
		deliver(et, CONTROL_EVENT_START, false, pc, 0, NULL);
	rt_mutex_unlock(&engine.lock);
}

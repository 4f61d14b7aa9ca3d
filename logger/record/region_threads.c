/* The threads of a recorded region: each one's start and end state, its region-relative
 * instruction count, and the baton that lets one of them run at a time, with the schedule
 * of slices it makes (DESIGN.md "Logger"; docs/architecture.md "Multithreaded regions").
 *
 * A region starts and ends with the world stopped (the seed's four-step transition). At a
 * start, the thread that caught the event records its state at once and holds the baton;
 * every other thread records its own state at its next safe point (it is stopped at a block
 * boundary, nothing runs in between), or, when it is inside a system call, when the call
 * returns (the return is its first event), and then waits for the baton. At an end, the
 * stopper records every thread's state: none of them can be running app code, as only the
 * baton's holder does, and each waiter noted where it waits. App threads, TLS-free. */
#include <string.h>
#include <sys/syscall.h>

#include "baton.h"
#include "first_touch.h"
#include "jit_messages.h"
#include "recorder.h"
#include "recorder_internal.h"
#include "region_snapshot.h"
#include "rt_alloc.h"

/* Where a thread that does not hold the baton stopped. */
enum waiting {
	RUNNING,       /* not waiting (it holds the baton, or is in the kernel) */
	AT_BOUNDARY,   /* before an instruction (a block start, a safe point, a PAUSE) */
	AFTER_SYSCALL, /* its syscall returned `wait_result` */
};

struct rec_thread {
	uint32_t region;       /* the region the flags below are about */
	bool born;	       /* made by a clone inside that region */
	bool started;	       /* its start state is recorded (or it was born in the region) */
	bool ended;	       /* its end state is recorded */
	bool holds;	       /* the baton */
	bool gone;	       /* exited */
	uint64_t start_icount; /* its instruction count at its region start */
	uint64_t slice_start;  /* region-relative count where its current slice began */
	enum waiting waits;
	uint64_t wait_icount; /* region-relative */
	/* The slice's budget counts only the blocks that check it (slice_checked): what it
	 * was set to, at which absolute count, and the share of the thread's instructions
	 * those blocks ran the last time it ran out (per 1024), to aim the next one. */
	uint64_t armed, armed_at;
	uint32_t loop_share;
	bool preempted; /* the watchdog asked it to pass the baton on at its next safe point */
	long wait_result;
	struct exit_words exit_words; /* kept from region to region */
};

static int state_slot = -1;
/* The slice's budget, split so that the checks of a loop's blocks do not chain (sort's
 * hottest loop is two blocks of three instructions); the first slot to run out calls the
 * check, which measures the slice by the instruction count. */
static struct jit_split_budget slice_budget;

/* The time slices' checks (a budget check, and a check at every PAUSE) matter only when
 * another thread can want the baton: a region of one thread runs without them (they took
 * a third of its recording time), and gets them when a second thread is born. */
static bool slices_checked;

/* Slices of RECORDER_WATCHED_SLICE instructions or more (the default's) have no check in the
 * code: the watchdog (region_threads_watch) asks the baton's holder to pass it on at a safe
 * point once its slice is spent and another thread waits; the checks of shorter ones
 * cost a third of sort --parallel=2's recording time. */
static bool watched;
static struct jit_thread *holder; /* of the baton, for the watchdog */

/* A slice need not end at an exact instruction, only come round while the thread runs:
 * its check is in the blocks that may close a loop (in sort's hottest loop, one block of
 * two, whose budget updates had chained from block to block), and in the first block of
 * threads born in a region, which must wait for the baton before they run anything. */
enum { MAX_ENTRIES = 16 };
static uint64_t entry_pcs[MAX_ENTRIES];
static size_t entry_count;
static bool check_every_block; /* more entry points than entry_pcs holds */

static bool is_entry(uint64_t pc)
{
	for (size_t i = 0; i < entry_count; i++)
		if (entry_pcs[i] == pc)
			return true;
	return false;
}

/* A thread born in the region starts at pc (under the runtime's lock). */
static void check_entry(uint64_t pc)
{
	if (check_every_block || is_entry(pc))
		return;
	if (entry_count == MAX_ENTRIES) {
		check_every_block = true;
		jit_request_retranslation();
		return;
	}
	entry_pcs[entry_count++] = pc;
	jit_request_retranslation_at(&pc, 1);
}

/* The budget for about `instructions` more, from `absolute` on, as the checked blocks'
 * share of them was the last time. */
static void arm_slice(struct jit_thread *t, struct rec_thread *st, uint64_t absolute,
		      uint64_t instructions)
{
	uint64_t budget =
	    instructions / 1024 * st->loop_share + instructions % 1024 * st->loop_share / 1024;
	st->armed = budget ? budget : 1;
	st->armed_at = absolute;
	jit_split_budget_set(t, &slice_budget, (int64_t)st->armed);
}

/* The budget ran out at `absolute`: the checked blocks' share of what the thread ran. */
static void measure_share(const struct jit_thread *t, struct rec_thread *st, uint64_t absolute)
{
	uint64_t ran = absolute - st->armed_at;
	uint64_t counted = st->armed - (uint64_t)jit_split_budget_get(t, &slice_budget);
	if (ran && counted <= ran)
		st->loop_share =
		    (uint32_t)(counted * 1024 / ran) ? (uint32_t)(counted * 1024 / ran) : 1;
}

static struct rec_thread *state_of(const struct jit_thread *t)
{
	return (struct rec_thread *)jit_thread_slot_get(t, state_slot);
}

/* Whether t takes part in the current region. */
static struct rec_thread *in_region(const struct jit_thread *t)
{
	struct rec_thread *st = state_of(t);
	return st && !st->gone && st->region == rec.region ? st : NULL;
}

/* ---- what the analysis tools see ---- */

/* t's part of the region starts or stops at its absolute count `at`. When t waits at the
 * start of a block its instruction count already holds (a budget check's callout), the rest
 * of that block is on the other side: the tools are told the block's pc. */
static void tell_observer(struct jit_thread *t, enum control_event event, uint64_t at)
{
	if (!rec.region_observer)
		return;
	struct jit_regs regs;
	jit_thread_get_regs(t, &regs);
	const struct control_event_info ev = {
	    .event = event,
	    .tid = jit_thread_id(t),
	    .pc = jit_thread_icount(t) > at ? regs.rip : 0,
	    .icount = at,
	    .thread = t,
	};
	rec.region_observer(&ev, NULL);
}

struct jit_thread *region_threads_watch(void)
{
	struct jit_thread *t = __atomic_load_n(&holder, __ATOMIC_ACQUIRE);
	if (!watched || !t || rec.state != IN || !baton_wanted())
		return NULL;
	struct rec_thread *st = in_region(t);
	if (!st || !st->holds || st->preempted ||
	    jit_thread_icount(t) - st->start_icount - st->slice_start < rec.slice)
		return NULL;
	st->preempted = true;
	return t;
}

void region_threads_setup(void)
{
	watched = rec.slice >= RECORDER_WATCHED_SLICE;
	state_slot = jit_thread_slot_reserve();
	if (state_slot < 0 || !jit_split_budget_reserve(&slice_budget))
		jit_fatal("no per-thread slot left for the recorder");
}

void region_thread_new(struct jit_thread *t, uint64_t pc)
{
	struct rec_thread *st = rt_calloc(1, sizeof *st);
	if (!st)
		jit_fatal("out of memory while recording");
	st->loop_share = 1024;
	jit_thread_slot_set(t, state_slot, (uint64_t)st);
	if (recording()) {
		/* Born in the region: from its first instruction, which waits for the baton. */
		st->region = rec.region;
		st->born = true;
		st->started = true;
		/* It runs nothing before it has the baton: were the region to end before its
		 * first block, that is its end state. */
		st->waits = AT_BOUNDARY;
		st->start_icount = jit_thread_icount(t);
		tell_observer(t, CONTROL_EVENT_START, st->start_icount);
		/* before the kernel makes the thread: its first block has the check */
		check_entry(pc);
		if (!slices_checked) {
			slices_checked = true;
			jit_request_retranslation();
		}
	}
	jit_split_budget_set(t, &slice_budget, 0);
}

bool region_thread_holds_baton(const struct jit_thread *t)
{
	struct rec_thread *st = in_region(t);
	return st && st->holds;
}

bool region_thread_records(const struct jit_thread *t)
{
	struct rec_thread *st = in_region(t);
	return recording() && st && st->started && !st->ended;
}

bool region_thread_born(const struct jit_thread *t)
{
	struct rec_thread *st = in_region(t);
	return st && st->born;
}

uint64_t region_icount(const struct jit_thread *t)
{
	return jit_thread_icount(t) - state_of(t)->start_icount;
}

uint64_t region_callout_icount(const struct jit_callout *c)
{
	return jit_callout_icount(c) - state_of(c->thread)->start_icount;
}

struct exit_words *region_thread_exit_words(const struct jit_thread *t)
{
	struct rec_thread *st = state_of(t);
	return st ? &st->exit_words : NULL;
}

/* ---- start and end states ---- */

static void record_start(struct jit_thread *t, struct rec_thread *st, uint64_t icount,
			 const struct state_note *note)
{
	st->start_icount = icount;
	st->started = true;
	region_snapshot_state(REC_THREAD, t, 0, note);
	tell_observer(t, CONTROL_EVENT_START, icount);
	/* Its first block may be one translated before the region (a syscall it was about
	 * to make): the replay translates it from the pinball. */
	if (!rec.fat) {
		struct jit_regs regs;
		jit_thread_get_regs(t, &regs);
		first_touch_range(regs.rip, 16);
	}
}

/* icount: region-relative. */
static void record_end(struct jit_thread *t, struct rec_thread *st, uint64_t icount,
		       const struct state_note *note)
{
	region_snapshot_state(REC_END, t, icount, note);
	st->ended = true;
	tell_observer(t, CONTROL_EVENT_STOP, st->start_icount + icount);
}

/* ---- the baton ---- */

/* The thread's slice ends at icount; with pass_on, the baton goes to the next waiter. */
static void end_slice(struct jit_thread *t, struct rec_thread *st, uint64_t icount, bool pass_on)
{
	__atomic_store_n(&holder, NULL, __ATOMIC_RELEASE);
	st->preempted = false;
	if (icount > st->slice_start) {
		struct record *r = must_new(REC_SLICE, 0);
		r->u.slice = (struct pinball_slice){jit_thread_id(t), icount - st->slice_start};
		record_push(r);
	}
	st->holds = false;
	if (pass_on)
		baton_release();
}

struct baton_wait {
	struct baton_ticket ticket;
	bool served;
};

/* Without the runtime's lock: touches nothing a transition may change meanwhile. */
static void wait_for_baton(void *arg)
{
	struct baton_wait *w = arg;
	w->served = baton_wait(&w->ticket);
}

static bool still_on(uint32_t region)
{
	return region_on() && rec.region == region;
}

/* Waits (without the runtime's lock) for the thread's turn in its region: true when it
 * holds the baton, false when the region is over. The stopper records an end state from
 * what is noted here meanwhile: `absolute` is the thread's instruction count where it
 * waits (`result`: the syscall's, after one). */
static bool take_turn(struct rec_thread *st, enum waiting where, uint64_t absolute, long result)
{
	uint32_t region = st->region;
	while (still_on(region)) {
		st->waits = where;
		st->wait_icount = absolute - st->start_icount;
		st->wait_result = result;
		struct baton_wait w = {.ticket = baton_take()};
		jit_wait_unlocked(wait_for_baton, &w);
		if (!still_on(region))
			return false; /* st is the next region's now, or no longer looked at */
		st->waits = RUNNING;
		if (w.served) {
			st->holds = true;
			return true;
		}
	}
	return false;
}

static void acquire(struct jit_thread *t, struct rec_thread *st, enum waiting where,
		    uint64_t absolute, long result)
{
	const struct state_note after_syscall = {.after_syscall = true, .result = result};
	for (;;) {
		if (take_turn(st, where, absolute, result)) {
			st->slice_start = absolute - st->start_icount;
			arm_slice(t, st, absolute, rec.slice);
			__atomic_store_n(&holder, t, __ATOMIC_RELEASE);
			return;
		}
		/* A new region began while it waited: it starts there, where it waits. */
		if (!region_on() || st->region != rec.region || st->started)
			return;
		record_start(t, st, absolute,
			     where == AFTER_SYSCALL ? &after_syscall : &(struct state_note){0});
	}
}

/* ---- transitions ---- */

void region_threads_begin(struct jit_thread *self, uint64_t icount)
{
	slices_checked = jit_thread_live_count() > 1;
	for (size_t i = 0; i < jit_thread_count(); i++) {
		struct jit_thread *t = jit_thread_at(i);
		struct rec_thread *st = state_of(t);
		if (!st || st->gone)
			continue;
		*st = (struct rec_thread){.region = rec.region,
					  .exit_words = st->exit_words,
					  .loop_share = st->loop_share};
		jit_split_budget_set(t, &slice_budget, 0);
		long nr;
		if (t == self)
			continue;
		if (!jit_thread_in_syscall(t, &nr)) {
			jit_request_safe_point(t); /* it records its start there */
		} else if (!rec.fat) {
			/* The kernel may write where the region withholds pages. */
			const long args[6] = {(long)jit_thread_gpr(t, JIT_GPR_RDI),
					      (long)jit_thread_gpr(t, JIT_GPR_RSI),
					      (long)jit_thread_gpr(t, JIT_GPR_RDX),
					      (long)jit_thread_gpr(t, JIT_GPR_R10),
					      (long)jit_thread_gpr(t, JIT_GPR_R8),
					      (long)jit_thread_gpr(t, JIT_GPR_R9)};
			prepare_memory(nr, args);
		}
	}
	struct rec_thread *me = state_of(self);
	record_start(self, me, icount, &(struct state_note){0});
	baton_enable();
	me->holds = true;
	arm_slice(self, me, icount, rec.slice);
	__atomic_store_n(&holder, self, __ATOMIC_RELEASE);
}

void region_thread_safe_point(struct jit_thread *t, uint64_t icount)
{
	struct rec_thread *st = in_region(t);
	if (st && region_on() && st->started && st->holds && st->preempted) {
		end_slice(t, st, icount - st->start_icount, true);
		acquire(t, st, AT_BOUNDARY, icount, 0);
		return;
	}
	if (!st || !region_on() || st->started)
		return;
	record_start(t, st, icount, &(struct state_note){0});
	acquire(t, st, AT_BOUNDARY, icount, 0);
}

/* The end state of a thread that is not the stopper: where it waits, or its syscall. */
static void record_end_of_other(struct jit_thread *t, struct rec_thread *st)
{
	long nr;
	switch (st->waits) {
	case AFTER_SYSCALL:
		record_end(t, st, st->wait_icount,
			   &(struct state_note){.after_syscall = true, .result = st->wait_result});
		break;
	case AT_BOUNDARY:
		record_end(t, st, st->wait_icount, &(struct state_note){0});
		break;
	case RUNNING:
		if (jit_thread_in_syscall(t, &nr))
			record_end(t, st, region_icount(t),
				   &(struct state_note){.in_syscall = true, .nr = nr});
		else /* cannot be: it holds the baton, or waits, or is in the kernel */
			jit_fatal("thread %u is in no known place at the region's end",
				  jit_thread_id(t));
		break;
	}
}

void region_threads_end(struct jit_thread *self, uint64_t absolute, long nr)
{
	struct rec_thread *me = state_of(self);
	uint64_t icount = absolute - me->start_icount;
	record_end(self, me, icount, &(struct state_note){.in_syscall = nr >= 0, .nr = nr});
	if (me->holds) /* not after a syscall's entry, which ended its slice */
		end_slice(self, me, icount, false);
	for (size_t i = 0; i < jit_thread_count(); i++) {
		struct jit_thread *t = jit_thread_at(i);
		struct rec_thread *st = in_region(t);
		if (t != self && st && st->started && !st->ended)
			record_end_of_other(t, st);
	}
	baton_disable();
}

/* ---- a thread's way through the region ---- */

void region_thread_syscall_enter(struct jit_thread *t)
{
	struct rec_thread *st = in_region(t);
	if (st && st->holds)
		end_slice(t, st, region_icount(t), true);
}

bool region_thread_syscall_return(struct jit_thread *t, long nr)
{
	struct rec_thread *st = in_region(t);
	if (!st || st->started)
		return false;
	/* Inside the syscall when the region began: the return is its first event. */
	record_start(t, st, jit_thread_icount(t),
		     &(struct state_note){.in_syscall = true, .nr = nr});
	return true;
}

void region_thread_resume(struct jit_thread *t, long result)
{
	struct rec_thread *st = in_region(t);
	if (st && st->started && !st->holds)
		acquire(t, st, AFTER_SYSCALL, jit_thread_icount(t), result);
}

void region_thread_exits(struct jit_thread *t)
{
	struct rec_thread *st = state_of(t);
	if (st && st->region == rec.region && st->started && !st->ended && recording()) {
		uint64_t icount = region_icount(t);
		record_end(t, st, icount, &(struct state_note){0});
		if (st->holds)
			end_slice(t, st, icount, true);
	}
	if (st)
		st->gone = true;
}

/* A block start in the region: the thread goes on with the baton, passes it on at the end
 * of its slice when another thread waits, or waits for it. */
static void slice_check(const struct jit_callout *c)
{
	struct jit_thread *t = c->thread;
	struct rec_thread *st = in_region(t);
	if (!st || !region_on()) {
		jit_split_budget_set(t, &slice_budget, INT64_C(1) << 62);
		return;
	}
	if (!st->started) /* missed its safe point: it starts here */
		record_start(t, st, jit_callout_icount(c), &(struct state_note){0});
	uint64_t icount = region_callout_icount(c);
	if (st->holds) {
		measure_share(t, st, jit_callout_icount(c));
		uint64_t ran = icount - st->slice_start;
		if (ran < rec.slice) { /* a slot ran out before the slice did */
			arm_slice(t, st, jit_callout_icount(c), rec.slice - ran);
			return;
		}
		if (!baton_wanted()) {
			arm_slice(t, st, jit_callout_icount(c), rec.slice);
			return;
		}
		end_slice(t, st, icount, true);
	}
	acquire(t, st, AT_BOUNDARY, jit_callout_icount(c), 0);
}

/* A PAUSE says the thread spins, waiting for another: it gives the baton to a waiter now
 * rather than spin to the end of its slice (the waiter may be the one it waits for). */
static void pause_check(const struct jit_callout *c)
{
	struct jit_thread *t = c->thread;
	struct rec_thread *st = in_region(t);
	if (!st || !region_on() || !st->holds || !baton_wanted())
		return;
	end_slice(t, st, region_callout_icount(c), true);
	acquire(t, st, AT_BOUNDARY, jit_callout_icount(c), 0);
}

bool region_slices_checked(void)
{
	return slices_checked;
}

void region_instrument_block(struct jit_block *b)
{
	if (!slices_checked)
		return;
	if (check_every_block || (!watched && jit_block_may_loop(b)) ||
	    is_entry(jit_block_pc(b, 0)))
		jit_insert_split_budget_check(b, &slice_budget, slice_check, NULL);
	for (size_t i = 0; i < jit_block_length(b); i++)
		if (jit_block_insn(b, i)->mnemonic == ZYDIS_MNEMONIC_PAUSE)
			jit_insert_callout(b, i, pause_check, NULL);
}

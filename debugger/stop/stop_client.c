/* The debugger's JIT client: a budget check at every block start (how a thread comes to a
 * stop at its first instruction, after a one-instruction step, at gdb's interrupt, or when
 * gdb holds it while others run) and a callout before every instruction at a breakpoint
 * (and, while watchpoints exist, before every instruction that touches memory). */
#include <linux/sched.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/syscall.h>

#include "jit_messages.h"
#include "rt_alloc.h"
#include "rt_syscall.h"
#include "stop_internal.h"

struct debugger dbg;
struct dbg_channel *dbg_channel;

bool debug_stop_map_channel(void)
{
	long m = rt_mmap(NULL, sizeof *dbg_channel, PROT_READ | PROT_WRITE,
			 MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (rt_is_error(m))
		return false;
	dbg_channel = (struct dbg_channel *)m;
	dbg_channel->event_fd = -1;
	return true;
}

struct dbg_thread *dbg_thread_of(const struct jit_thread *t)
{
	uint32_t n = jit_thread_id(t);
	return n < DBG_MAX_THREADS ? __atomic_load_n(&dbg.threads[n], __ATOMIC_ACQUIRE) : NULL;
}

struct dbg_thread *dbg_thread_by_id(uint32_t id)
{
	struct dbg_thread *ts = id >= 1 && id <= DBG_MAX_THREADS ? dbg.threads[id - 1] : NULL;
	return ts && !jit_thread_exited(ts->jt) ? ts : NULL;
}

static bool periodic_checkpoints(void)
{
	return dbg_channel->reverse.on && dbg_channel->reverse.interval;
}

/* Whether the thread must look at its state at its next block start: a stop or a hold is
 * due, or a goal or a checkpoint may be. */
void dbg_update_budget(struct dbg_thread *ts)
{
	bool on = !dbg.disabled && (ts->hold || ts->step != STEP_NONE || ts->initial ||
				    __atomic_load_n(&dbg.interrupt, __ATOMIC_ACQUIRE) ||
				    dbg.goal.thread == ts->id || periodic_checkpoints());
	jit_thread_slot_set(ts->jt, dbg.budget_slot, on ? DBG_BUDGET_ON : DBG_BUDGET_OFF);
}

/* Runs the instruction at the callout alone: its block is cut after it, and the check
 * fires again at the next block start (the JIT gives the rest of the block back to the
 * budget, so the slot ends at 1 before the instruction is counted). */
static void step_one(const struct jit_callout *c, struct dbg_thread *ts)
{
	ts->step = STEP_ONE;
	jit_callout_limit_block(c, 1);
	jit_thread_slot_set(c->thread, dbg.budget_slot, 1 - (uint64_t)c->block_remaining);
}

static void yield(void *arg)
{
	(void)arg;
	rt_syscall0(SYS_sched_yield);
}

/* A copy has the other threads only while they wait (checkpoints.c). One that is about to
 * (it needs the runtime's lock to get to its wait) is given the time to. */
static bool others_waiting(struct jit_thread *self)
{
	for (int tries = 0; tries < 4; tries++) {
		if (jit_others_waiting(self))
			return true;
		jit_wait_unlocked(yield, NULL);
	}
	return false;
}

/* Reverse execution at a block start: the goal of the resume reached (a stop), or a
 * checkpoint due here (true in the copy made from it, which reports its arrival). */
static bool reverse_stop(const struct jit_callout *c, struct dbg_thread *ts, uint64_t icount,
			 struct dbg_stop *why)
{
	struct dbg_goal *g = &dbg.goal;
	if (g->thread == ts->id && icount >= g->icount) {
		g->thread = 0;
		why->kind = DBG_STOP_GOAL;
		return true;
	}
	uint64_t interval = dbg_channel->reverse.interval, total = dbg_total_icount();
	bool extra = g->thread == ts->id && g->checkpoint_at && icount >= g->checkpoint_at;
	bool periodic = periodic_checkpoints() && total >= dbg.next_mark;
	if ((extra || periodic) && !others_waiting(c->thread))
		return false; /* at a later block start */
	if (extra)
		g->checkpoint_at = 0;
	if (periodic) /* (one checkpoint serves both when an extra one is due too) */
		dbg.next_mark = (total / interval + 1) * interval;
	if ((extra || (periodic && dbg_checkpoint_due(total))) && dbg_checkpoint(c, extra)) {
		why->kind = DBG_STOP_ARRIVED;
		return true;
	}
	return false;
}

/* Instructions to a mark; a mark passed is a checkpoint still due: at the next block. */
static uint64_t until(uint64_t mark, uint64_t now)
{
	return mark > now ? mark - now : 1;
}

/* Nothing to do here: the budget runs out where the goal or the next checkpoint is (the
 * block cut short when that is inside it), or never. */
static void set_budget(const struct jit_callout *c, struct dbg_thread *ts, uint64_t icount)
{
	const struct dbg_goal *g = &dbg.goal;
	uint64_t d = UINT64_MAX;
	if (g->thread == ts->id) {
		d = g->icount - icount;
		if (g->checkpoint_at && until(g->checkpoint_at, icount) < d)
			d = until(g->checkpoint_at, icount);
	}
	if (periodic_checkpoints()) {
		/* Every thread counts its own way to the mark, which the total passes sooner. */
		uint64_t each = until(dbg.next_mark, dbg_total_icount()) / jit_thread_live_count();
		if (each < d)
			d = each ? each : 1;
	}
	if (d == UINT64_MAX) {
		jit_thread_slot_set(c->thread, dbg.budget_slot, DBG_BUDGET_OFF);
		return;
	}
	jit_thread_slot_set(c->thread, dbg.budget_slot, d - c->block_remaining);
	if (d < c->block_remaining)
		jit_callout_limit_block(c, (uint32_t)d);
}

static void on_budget(const struct jit_callout *c)
{
	struct dbg_thread *ts = dbg_thread_of(c->thread);
	if (!ts)
		return;
	for (;;) {
		if (ts->hold) {
			dbg_park_held(c, ts);
			continue;
		}
		uint64_t icount = jit_callout_icount(c);
		if (ts->step == STEP_ARMED &&
		    (ts->step_anywhere || (c->pc == ts->step_pc && icount == ts->step_icount))) {
			step_one(c, ts);
			return;
		}
		struct dbg_stop why = {.kind = DBG_STOP_SIGNAL, .signal = SIGTRAP};
		if (ts->step != STEP_NONE) /* the step is over (or a signal handler took it) */
			why = ts->step_reason;
		else if (__atomic_load_n(&dbg.interrupt, __ATOMIC_ACQUIRE))
			why.signal = SIGINT;
		else if (!ts->initial && !reverse_stop(c, ts, icount, &why)) {
			set_budget(c, ts, icount);
			return;
		}
		ts->initial = false;
		ts->step = STEP_NONE;
		dbg_stop(c, &why); /* the resume may have held or armed this thread: look again */
	}
}

/* After a stop at an instruction callout: a held thread parks here; a thread that steps or
 * has a goal comes back to its budget check at this pc through a fresh translation starting
 * here. */
static void go_on_from_insn(const struct jit_callout *c, struct dbg_thread *ts)
{
	while (ts->hold)
		dbg_park_held(c, ts);
	if ((ts->step == STEP_ARMED && !ts->step_anywhere) || dbg.goal.thread == ts->id)
		jit_callout_restart_block(c);
	dbg_update_budget(ts);
}

/* A hit while the stub scans a stretch of the replay for the last one (reverse-continue):
 * noted, and the thread goes on. */
static void note_hit(const struct jit_callout *c, struct dbg_thread *ts, uint64_t icount,
		     const struct dbg_stop *why)
{
	struct dbg_reverse *rv = &dbg_channel->reverse;
	rv->nhits++;
	rv->last_hit = (struct dbg_hit){ts->id, icount, c->pc, why->kind, why->watch_addr};
}

static void on_insn(const struct jit_callout *c)
{
	struct dbg_thread *ts = dbg_thread_of(c->thread);
	uint64_t icount = jit_callout_icount(c);
	if (!ts || !dbg_channel->connected || dbg.mode == DBG_RUN_SILENT)
		return;
	/* A thread going on from a stop does not hit the breakpoint there again (a scan counts
	 * a hit where a copy arrived); an access there is a new one (going back stops before
	 * the watched one). */
	bool again = dbg.mode != DBG_RUN_SCAN && c->pc == ts->skip_pc && icount == ts->skip_icount;
	struct dbg_stop why = {.kind = DBG_STOP_SWBREAK, .signal = SIGTRAP};
	bool breakpoint = !again && dbg_breakpoint_at(c->pc);
	if (!breakpoint && (!dbg_channel->points.nwatches || !dbg_watch_hit(c, &why)))
		return;
	if (dbg.mode == DBG_RUN_SCAN) {
		note_hit(c, ts, icount, &why);
		return;
	}
	if (breakpoint) {
		dbg_stop(c, &why);
		go_on_from_insn(c, ts);
		return;
	}
	if (ts->step != STEP_NONE && c->pc == ts->step_pc && icount == ts->step_icount) {
		ts->step_reason = why; /* already stepping this instruction: its stop tells */
		return;
	}
	/* The access has not happened yet: stop once this instruction has run. */
	ts->step = STEP_ARMED;
	ts->step_anywhere = false;
	ts->step_pc = ts->skip_pc = c->pc;
	ts->step_icount = ts->skip_icount = icount;
	ts->step_reason = why;
	go_on_from_insn(c, ts);
}

static void instrument(struct jit_block *b, void *arg)
{
	(void)arg;
	if (dbg.disabled)
		return;
	jit_insert_budget_check(b, dbg.budget_slot, on_budget, &dbg);
	for (size_t i = 0; i < jit_block_length(b); i++)
		if (dbg_breakpoint_at(jit_block_pc(b, i)) ||
		    (dbg_channel->points.nwatches && dbg_insn_accesses_memory(b, i)))
			jit_insert_callout(b, i, on_insn, &dbg);
}

static void thread_start(struct jit_thread *t, uint64_t pc, void *arg)
{
	(void)pc;
	(void)arg;
	static bool first_seen;
	uint32_t n = jit_thread_id(t);
	struct dbg_thread *ts = n < DBG_MAX_THREADS ? rt_calloc(1, sizeof *ts) : NULL;
	if (!ts) {
		jit_message("warning: gdb does not see thread %u (out of memory or numbers)", n);
		return;
	}
	ts->jt = t;
	ts->id = n + 1;
	ts->initial = !first_seen && !dbg.disabled;
	ts->hold = dbg.hold_new && !ts->initial;
	first_seen = true;
	dbg_update_budget(ts);
	__atomic_store_n(&dbg.threads[n], ts, __ATOMIC_RELEASE);
}

/* Stops t for signal sig where it stands (a block boundary, or the instruction that
 * faulted): whether gdb passes the signal on as it resumes. */
static bool stop_at_signal(struct jit_thread *t, struct dbg_thread *ts, int sig)
{
	struct jit_regs r;
	jit_thread_get_regs(t, &r);
	struct jit_callout here = {.thread = t, .pc = r.rip};
	dbg_stop(&here, &(struct dbg_stop){.kind = DBG_STOP_SIGNAL, .signal = sig});
	bool pass = ts->pass_signal != 0;
	while (ts->hold)
		dbg_park_held(&here, ts);
	dbg_update_budget(ts);
	return pass;
}

/* An app signal about to be delivered stops its thread: gdb shows it and says whether the
 * app gets it (a resume with the signal) or not. */
static bool signal_filter(struct jit_thread *t, int sig, const void *info, void *arg)
{
	(void)info;
	(void)arg;
	struct dbg_thread *ts = dbg_thread_of(t);
	if (!ts || !dbg_channel->connected || dbg.disabled)
		return true;
	return stop_at_signal(t, ts, sig);
}

void debug_stop_death(struct jit_thread *t, int sig)
{
	struct dbg_thread *ts = dbg_thread_of(t);
	if (ts && dbg_channel->connected && !dbg.disabled)
		stop_at_signal(t, ts, sig);
	dbg.death_signal = sig;
}

static bool is_fork_child(long nr, const long args[6], long result)
{
	return result == 0 && (nr == SYS_fork || nr == SYS_vfork ||
			       (nr == SYS_clone && !(args[0] & CLONE_THREAD)));
}

/* A held thread whose syscall returns parks there. A forked child is another process,
 * which gdb does not follow: it never stops. */
static void syscall_post(struct jit_thread *t, long nr, const long args[6], long result, void *arg)
{
	(void)arg;
	struct dbg_thread *ts = dbg_thread_of(t);
	if (is_fork_child(nr, args, result)) {
		dbg.disabled = true;
		for (uint32_t i = 0; i < DBG_MAX_THREADS; i++)
			if (dbg.threads[i])
				dbg_update_budget(dbg.threads[i]);
		return;
	}
	while (ts && ts->hold)
		dbg_park_held(NULL, ts);
}

/* The process ends: gdb is told (W or X), and the port file goes. */
static void process_ends(const struct dbg_stop *how)
{
	if (__atomic_load_n(&dbg_channel->attached, __ATOMIC_ACQUIRE) && dbg_channel->connected &&
	    !dbg.disabled)
		dbg_publish(how, true);
	if (dbg.at_end)
		dbg.at_end();
}

static void at_exit(int status, void *arg)
{
	(void)arg;
	if (dbg.death_signal)
		process_ends(
		    &(struct dbg_stop){.kind = DBG_STOP_KILLED, .signal = dbg.death_signal});
	else
		process_ends(&(struct dbg_stop){.kind = DBG_STOP_EXITED, .status = status});
}

static void app_dies(struct jit_thread *t, int sig, enum jit_death_place where, void *arg)
{
	(void)t;
	(void)where;
	(void)arg;
	process_ends(&(struct dbg_stop){.kind = DBG_STOP_KILLED, .signal = sig});
}

static void image_mapped(const char *path, uint64_t start, uint64_t end, uint64_t offset, void *arg)
{
	(void)path;
	(void)start;
	(void)end;
	(void)offset;
	(void)arg;
	dbg.images++;
}

/* A vfork child sharing our memory would run the checks as if it were its parent. */
static bool vfork_shares_memory(void *arg)
{
	(void)arg;
	return false;
}

static const struct jit_client client = {
    .name = "debugger",
    .instrument_block = instrument,
    .thread_start = thread_start,
    .image_mapped = image_mapped,
    .syscall_post = syscall_post,
    .signal_filter = signal_filter,
    .at_exit = at_exit,
    .app_dies = app_dies,
    .vfork_shares_memory = vfork_shares_memory,
};

int debug_stop_register(const struct debug_hooks *hooks, void (*at_end)(void))
{
	dbg.hooks = hooks;
	dbg.at_end = at_end;
	jit_enable_icount();
	dbg.budget_slot = jit_thread_slot_reserve();
	if (dbg.budget_slot < 0)
		return -1;
	jit_register_client(&client);
	return 0;
}

void debug_stop_interrupt(void)
{
	__atomic_store_n(&dbg.interrupt, 1, __ATOMIC_RELEASE);
	for (uint32_t i = 0; i < DBG_MAX_THREADS; i++) {
		struct dbg_thread *ts = __atomic_load_n(&dbg.threads[i], __ATOMIC_ACQUIRE);
		if (ts && !jit_thread_exited(ts->jt))
			jit_thread_slot_set(ts->jt, dbg.budget_slot, DBG_BUDGET_ON);
	}
}

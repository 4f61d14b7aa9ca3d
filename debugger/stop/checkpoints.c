/* Checkpoints for reverse execution (replayer only). A replay is deterministic, so any
 * earlier moment is reached again by replaying forward from a copy of the process taken
 * before it. A checkpoint is such a copy: fork()ed at a block start (the code cache, the
 * runtime and the app's memory come with it) and asleep until the stub asks for a copy of
 * it, which becomes the live replay while the checkpoint sleeps on, reusable.
 *
 * Every process is made with CLONE_PARENT, so all of them are children of the first one,
 * where the stub runs: it alone reaps them, learns the live one's exit status, and kills
 * the checkpoints when the session ends (and the kernel kills them if it dies: each asks
 * for SIGKILL at its parent's death).
 *
 * Only the forking thread runs in a copy: checkpoints are taken where every other thread
 * waits (for its turn in the schedule, or held by the debugger), and a copy that goes live
 * gives each of them a kernel thread again, which waits on (jit_thaw_threads). In a replay
 * that is nearly always: one thread runs at a time (docs/architecture.md).
 * App-thread code, TLS-free. */
#include <linux/prctl.h>
#include <linux/sched.h>
#include <signal.h>

#include "jit_messages.h"
#include "rt_syscall.h"
#include "stop_internal.h"

/* Checkpoints taken near a goal that are kept: the oldest goes first. */
enum { MAX_EXTRA = 8 };

static const unsigned long COPY_FLAGS = CLONE_PARENT | SIGCHLD;

uint64_t dbg_total_icount(void)
{
	uint64_t total = 0;
	for (size_t i = 0; i < jit_thread_count(); i++)
		total += jit_thread_next_icount(jit_thread_at(i));
	return total;
}

static struct dbg_reverse *reverse(void)
{
	return &dbg_channel->reverse;
}

bool dbg_checkpoint_due(uint64_t total)
{
	uint64_t interval = reverse()->interval;
	if (!reverse()->on || !interval)
		return false;
	uint64_t from = total / interval * interval;
	for (int i = 0; i < DBG_MAX_CHECKPOINTS; i++) {
		const struct dbg_checkpoint *k = &reverse()->checkpoints[i];
		if (k->pid && k->total >= from && k->total < from + interval)
			return false;
	}
	return true;
}

static void quit(struct dbg_checkpoint *k)
{
	rt_syscall2(SYS_kill, k->pid, SIGKILL);
	k->pid = 0;
}

/* A free slot; for an extra checkpoint, the oldest extra one's when MAX_EXTRA are kept or
 * the table is full. NULL: none. */
static struct dbg_checkpoint *slot_for(bool extra)
{
	struct dbg_checkpoint *free = NULL, *oldest_extra = NULL;
	int extras = 0;
	for (int i = 0; i < DBG_MAX_CHECKPOINTS; i++) {
		struct dbg_checkpoint *k = &reverse()->checkpoints[i];
		if (!k->pid) {
			free = free ? free : k;
			continue;
		}
		if (k->extra && (extras++, !oldest_extra || k->taken < oldest_extra->taken))
			oldest_extra = k;
	}
	if (extra && oldest_extra && (extras >= MAX_EXTRA || !free)) {
		quit(oldest_extra);
		return oldest_extra;
	}
	return free;
}

/* A process made here asks to die with the stub's process, and stops if that is gone. */
static void child_of_stub(void)
{
	rt_syscall2(SYS_prctl, PR_SET_PDEATHSIG, SIGKILL);
	if (rt_syscall0(SYS_getppid) != reverse()->stub_pid)
		rt_exit_group(1);
}

static uint64_t set_mask(uint64_t mask)
{
	uint64_t old = 0;
	rt_syscall4(SYS_rt_sigprocmask, SIG_SETMASK, (long)&mask, (long)&old, sizeof mask);
	return old;
}

/* The checkpoint's life: asleep (no signal may reach the app it holds) until the stub asks
 * for a copy, which returns from here as the live replay; killed when no longer wanted. */
static void sleep_as_checkpoint(struct dbg_checkpoint *k, struct jit_thread *self)
{
	child_of_stub();
	uint64_t mask = set_mask(~0ull);
	k->pid = (int32_t)rt_getpid();
	for (;;) {
		int command = __atomic_load_n(&k->command, __ATOMIC_ACQUIRE);
		if (command == DBG_CKPT_COPY) {
			__atomic_store_n(&k->command, DBG_CKPT_WAIT, __ATOMIC_RELEASE);
			long pid = jit_fork(self, COPY_FLAGS);
			if (pid > 0)
				continue;
			if (pid < 0) /* no copy: the checkpoint itself goes on, and is gone */
				k->pid = 0;
			else
				child_of_stub();
			break;
		}
		rt_futex_wait_shared(&k->command, command, 0);
	}
	set_mask(mask);
	long thawed = jit_thaw_threads(self);
	if (thawed < 0)
		jit_fatal("a copy of the checkpoint at total %lu cannot start its threads "
			  "(clone: errno %ld)",
			  k->total, -thawed);
	__atomic_store_n(&reverse()->live_pid, (int32_t)rt_getpid(), __ATOMIC_RELEASE);
	dbg_points_sync();
}

bool dbg_checkpoint(const struct jit_callout *c, bool extra)
{
	if (!jit_others_waiting(c->thread))
		return false;
	struct dbg_checkpoint *k = slot_for(extra);
	if (!k)
		return false;
	static uint64_t taken;
	*k = (struct dbg_checkpoint){.pid = -1,
				     .command = DBG_CKPT_WAIT,
				     .extra = extra,
				     .taken = ++taken,
				     .thread = jit_thread_id(c->thread) + 1,
				     .icount = jit_callout_icount(c),
				     .pc = c->pc,
				     .total = dbg_total_icount(),
				     .live_threads = (uint32_t)jit_thread_live_count()};
	for (size_t i = 0; i < jit_thread_count(); i++) {
		const struct jit_thread *t = jit_thread_at(i);
		if (jit_thread_id(t) < DBG_CKPT_THREADS)
			k->counts[jit_thread_id(t)] = jit_thread_next_icount(t);
	}
	long pid = jit_fork(c->thread, COPY_FLAGS);
	if (pid != 0) {
		k->pid = pid > 0 ? (int32_t)pid : 0;
		return false;
	}
	sleep_as_checkpoint(k, c->thread);
	return true;
}

void debug_stop_region_start(struct jit_thread *first)
{
	if (!dbg_channel || !reverse()->on)
		return;
	struct jit_regs r;
	jit_thread_get_regs(first, &r);
	dbg_checkpoint(&(struct jit_callout){.thread = first, .pc = r.rip}, false);
}

bool debug_stop_output_new(uint32_t number, uint64_t icount)
{
	if (!dbg_channel || !reverse()->on || number >= DBG_MAX_THREADS)
		return true;
	uint64_t *echoed = &reverse()->echoed[number];
	if (icount < *echoed)
		return false;
	*echoed = icount + 1;
	return true;
}

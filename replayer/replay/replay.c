#include "replay.h"

#include <errno.h>
#include <linux/prctl.h>
#include <linux/sched.h>
#include <string.h>
#include <sys/syscall.h>

#include "echo.h"
#include "inject_memory.h"
#include "instrument.h"
#include "jit_messages.h"
#include "nondet.h"
#include "replay_internal.h"
#include "rt_format.h"
#include "rt_syscall.h"
#include "syscall_model.h"

static const char *name_of(long nr)
{
	const char *n = syscall_name(nr);
	return n ? n : "?";
}

const struct replay_event *expect_event(struct rthread *th, uint64_t icount,
					enum pinball_event_kind kind, const char *what)
{
	const struct replay_thread *rt = th->rt;
	if (th->next == rt->nevents)
		diverged(th, icount, "%s, but the recording has no more events", what);
	const struct replay_event *e = &rt->events[th->next];
	if (e->kind != kind || e->icount != icount) {
		if (e->kind == PINBALL_EV_SYSCALL)
			diverged(th, icount, "%s, but the recording has syscall %s at icount %lu",
				 what, name_of((long)e->nr), e->icount);
		diverged(th, icount, "%s, but the recording has %s at icount %lu", what,
			 pinball_event_name(e->kind), e->icount);
	}
	th->next++;
	if (rp.opt.observer)
		rp.opt.observer->event(rt->tid, e, rp.opt.observer->arg);
	return e;
}

/* A thread that renames itself is renamed in the replay too: debuggers show the names. */
static void follow_rename(long nr, const long a[6], long result)
{
	char name[16];
	if (nr == SYS_prctl && a[0] == PR_SET_NAME && result == 0 &&
	    jit_read_app_memory(name, (uint64_t)a[1], sizeof name)) {
		name[15] = '\0';
		rt_syscall2(SYS_prctl, PR_SET_NAME, (long)name);
	}
}

long replay_inject_syscall(struct jit_thread *t, struct rthread *th, uint64_t icount, long nr,
			   const long a[6], const struct replay_event *e)
{
	(void)t;
	long result = e->result;
	uint32_t crc;
	if (e->output_checked &&
	    (!syscall_output_crc(nr, a, e->result, &crc) || crc != e->output_crc))
		diverged(th, icount,
			 "%s: the app writes other bytes than the recording did (%ld "
			 "bytes to fd %ld)",
			 name_of(nr), e->result, a[0]);
	char why[256];
	const char *bad;
	if (syscall_replay_kind(nr, a) == SYSCALL_REPLAY_MEMORY_MAP)
		bad = inject_memory_change(rp.in, th->rt->tid, nr, a, e, &result, why, sizeof why);
	else if (nr == SYS_madvise)
		bad = inject_advice(a, e, why, sizeof why);
	else
		bad = inject_writes(e, why, sizeof why);
	if (bad)
		diverged(th, icount, "%s: %s", name_of(nr), bad);
	if (result != e->result)
		diverged(th, icount, "%s gave 0x%lx, recorded 0x%lx", name_of(nr), result,
			 e->result);
	if (rp.opt.echo && (!rp.opt.output_new || rp.opt.output_new(th->rt->tid, icount)))
		echo_syscall(rp.in, e, nr, a);
	follow_rename(nr, a, result);
	return result;
}

/* A thread made in the region: the recorded clone's next event names it, and it is made
 * without the kernel's writes of its tid (the recorded ones are applied instead). */
static long create_thread(struct jit_thread *t, struct rthread *th, uint64_t icount,
			  const long a[6], const struct replay_event *e)
{
	const struct replay_event *made =
	    expect_event(th, icount, PINBALL_EV_THREAD_CREATE, "the app creates a thread");
	struct rthread *child = NULL;
	for (size_t i = 0; i < rp.in->nthreads && !child; i++)
		if (rp.in->threads[i].tid == made->create.child_tid && !rp.in->threads[i].at_start)
			child = &rp.threads[i];
	if (!child || child->thread)
		diverged(th, icount, "the recording creates thread %u, which it cannot be",
			 made->create.child_tid);
	rp.pending = child;
	jit_number_next_thread(child->rt->tid);
	long real = jit_app_clone_thread(t, (unsigned long)a[0], (uint64_t)a[1], (uint64_t)a[4]);
	rp.pending = NULL;
	if (real < 0)
		diverged(th, icount, "thread %u cannot be created (error %ld)", child->rt->tid,
			 -real);
	return replay_inject_syscall(t, th, icount, SYS_clone, a, e);
}

/* Once per syscall (numbers beyond the table share a word): an app that calls one in a loop
 * would bury the verdict under copies of the same line. */
static void warn_unmodelled(long nr, uint64_t icount)
{
	enum { SLOTS = 512 };
	static bool warned[SLOTS + 1];
	size_t slot = nr >= 0 && nr < SLOTS ? (size_t)nr : SLOTS;
	if (__atomic_exchange_n(&warned[slot], true, __ATOMIC_RELAXED))
		return;
	jit_message("warning: syscall %s at icount %lu is not modelled: its memory effects "
		    "beyond the result were not recorded (said once per syscall)",
		    name_of(nr), icount);
}

static bool syscall_pre(struct jit_thread *t, long nr, const long a[6], void *arg)
{
	(void)arg;
	struct rthread *th = rthread_of(t);
	const struct replay_thread *rt = th->rt;
	uint64_t icount = jit_thread_icount(t);
	if (icount == rt->end_icount && rt->end_in_syscall && th->next == rt->nevents) {
		/* The region ended while the thread was inside this syscall. */
		replay_thread_finish(t, th, icount, true);
		replay_thread_park();
	}
	char what[64];
	rt_format(what, sizeof what, "the replay made syscall %s", name_of(nr));
	const struct replay_event *e = expect_event(th, icount, PINBALL_EV_SYSCALL, what);
	if ((long)e->nr == SYS_exit && nr != SYS_exit && th->next == rt->nevents) {
		/* The thread died on entering this syscall (a seccomp filter killed it while
		 * other threads went on): recorded as its exit, with the kernel's writes. */
		replay_inject_syscall(t, th, icount, SYS_exit, a, e);
		th->exited = true;
		replay_thread_finish(t, th, icount, true);
		replay_thread_park();
	}
	if ((long)e->nr != nr)
		diverged(th, icount, "the replay made syscall %s, the recording %s", name_of(nr),
			 name_of((long)e->nr));
	struct mem_range ranges[SYSCALL_MAX_RANGES];
	if (syscall_writes(nr, a, e->result, ranges) < 0)
		warn_unmodelled(nr, icount);
	rp.syscalls++;
	if (nr == SYS_exit_group || (nr == SYS_exit && replay_threads_running() == 1)) {
		for (size_t i = 0; i < rp.in->nthreads; i++)
			if (!rp.threads[i].finished && &rp.threads[i] != th)
				diverged(&rp.threads[i], 0,
					 "the process exits before this thread reached its end");
		replay_thread_finish(t, th, icount, true);
	}
	if (nr == SYS_exit) {
		/* The thread leaves the region: the kernel zeroed its clear_child_tid word. */
		replay_inject_syscall(t, th, icount, nr, a, e);
		th->exited = true;
		replay_thread_finish(t, th, icount, true);
		return false;
	}
	if (nr == SYS_clone && (a[0] & CLONE_THREAD) && e->result > 0) {
		jit_thread_set_gpr(t, JIT_GPR_RAX, (uint64_t)create_thread(t, th, icount, a, e));
		replay_thread_slice_done(th, icount);
		return true;
	}
	/* The runtime emulates it from the app's state, as it did; except where it failed
	 * without an effect (EFAULT may come after the effect): an app's seccomp filter may
	 * have refused it, and a replay runs no filter. */
	bool failed_before_effect = e->result < 0 && e->result >= -4095 && e->result != -EFAULT &&
				    e->result != -JIT_ERESTARTSYS;
	if (syscall_replay_kind(nr, a) == SYSCALL_REPLAY_RUNTIME && !failed_before_effect)
		return false;
	if (e->result == -JIT_ERESTARTSYS) {
		/* interrupted by a signal and restarted: back to the syscall instruction */
		struct jit_regs regs;
		jit_thread_get_regs(t, &regs);
		regs.rip -= 2;
		jit_thread_set_regs(t, &regs);
		jit_thread_set_gpr(t, JIT_GPR_RAX, (uint64_t)nr);
		return true;
	}
	jit_thread_set_gpr(t, JIT_GPR_RAX,
			   (uint64_t)replay_inject_syscall(t, th, icount, nr, a, e));
	return true;
}

static void nondet_callout(const struct jit_callout *c)
{
	struct rthread *th = rthread_of(c->thread);
	uint64_t icount = jit_callout_icount(c);
	const struct replay_event *e =
	    expect_event(th, icount, PINBALL_EV_INSN, "a non-deterministic instruction ran");
	struct nondet_result v = {
	    .kind = (enum nondet_kind)e->insn.kind,
	    .rax = e->insn.rax,
	    .rbx = e->insn.rbx,
	    .rcx = e->insn.rcx,
	    .rdx = e->insn.rdx,
	    .value = e->insn.value,
	    .dest_reg = e->insn.dest_reg,
	    .cf = e->insn.cf,
	};
	if (!nondet_apply(c->thread, (uintptr_t)c->arg, &v))
		diverged(th, icount, "a different non-deterministic instruction ran (%s)",
			 pinball_insn_name(e->insn.kind));
}

static void instrument(struct jit_block *b, void *arg)
{
	(void)arg;
	if (jit_block_flags_live(b))
		replay_note_flags_live(jit_block_pc(b, 0));
	nondet_instrument_block(b, nondet_callout);
	/* Without guard_only, the instruction count's countdown checks every block. */
	if (rp.guard_only && !__atomic_load_n(&rp.began, __ATOMIC_ACQUIRE)) /* to begin it */
		jit_insert_budget_check(b, rp.budget_slot, replay_thread_guard, NULL);
}

/* Translations kept across replays (-jit:persist): once begun, a replay guarded only at
 * its end inserts nothing but callouts at non-deterministic instructions (kept: their
 * argument is the instruction's kind);
 * the budget checks of other replays, and of this one before it begins, depend on its
 * state. (replay_note_flags_live serves those budget checks alone.) */
static uint64_t keep_tag(void *arg)
{
	(void)arg;
	return rp.guard_only && __atomic_load_n(&rp.began, __ATOMIC_ACQUIRE) ? 1 : 0;
}

static void thread_start(struct jit_thread *t, uint64_t pc, void *arg)
{
	(void)pc;
	(void)arg;
	replay_thread_bind(t);
}

/* The app dies of a signal the recording did not see it die of. */
static void app_dies(struct jit_thread *t, int sig, enum jit_death_place where, void *arg)
{
	(void)where;
	(void)arg;
	struct jit_regs regs;
	jit_thread_get_regs(t, &regs);
	diverged(rthread_of(t), jit_thread_icount(t), "the app died of signal %d near pc 0x%lx",
		 sig, regs.rip);
}

static void safe_point(struct jit_thread *t, uint64_t icount, void *arg)
{
	(void)arg;
	replay_thread_guard_stop(t, icount);
}

static const struct jit_client client = {
    .name = "replay",
    .instrument_block = instrument,
    .keep_tag = keep_tag,
    .kept_callouts = (const jit_callout_fn[]){nondet_callout, NULL},
    .safe_point = safe_point,
    .syscall_pre = syscall_pre,
    .thread_start = thread_start,
    .app_dies = app_dies,
};

bool replay_start(const struct replay_input *in, const struct replay_options *o)
{
	rp.in = in;
	rp.opt = *o;
	if (!replay_threads_setup())
		return false;
	if (rp.guard_only)
		jit_enable_icount();
	else
		jit_enable_icount_countdown(replay_thread_block_start, NULL);
	jit_register_client(&client);
	return true;
}

void replay_debug_status(char *out, size_t size)
{
	uint64_t total = 0;
	for (size_t i = 0; i < rp.in->nthreads; i++)
		total += rp.in->threads[i].end_icount;
	rt_format(out, size,
		  "replayer: replaying a region of %zu threads, %lu instructions; %zu threads "
		  "have reached their end (the verdict comes with the last)",
		  rp.in->nthreads, total, (size_t)rp.finished);
}

bool replay_debug_thread_end(uint32_t number, uint64_t *icount)
{
	for (size_t i = 0; i < rp.in->nthreads; i++)
		if (rp.in->threads[i].tid == number) {
			*icount = rp.in->threads[i].end_icount;
			return true;
		}
	return false;
}

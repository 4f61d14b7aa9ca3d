/* The replayed threads and the recorded schedule: each thread runs only during its own
 * slices of the schedule, for exactly the recorded number of instructions, then hands the
 * turn to the next slice's thread; a thread stops at its recorded end and the last one to
 * get there gives the verdict. App threads, TLS-free. */
#include <linux/futex.h>
#include <linux/prctl.h>
#include <string.h>
#include <sys/syscall.h>

#include "jit_messages.h"
#include "replay_internal.h"
#include "rt_alloc.h"
#include "rt_format.h"
#include "rt_string.h"
#include "rt_syscall.h"

/* Flags that the replay must reproduce exactly (the status flags and DF). */
#define COMPARED_FLAGS 0xcd5ull

struct replay_state rp;

/* A single thread with no signal to deliver, whose region ends inside a syscall: nothing
 * stops it at a block boundary (its turn is never another's), so a budget check in every
 * block is not needed; a debugger, which stops anywhere, wants them all. */
static bool guard_is_enough(const struct replay_input *in)
{
	if (in->nthreads != 1 || rp.opt.region_start ||
	    !(in->ends_at_exit || in->threads[0].end_in_syscall))
		return false;
	for (size_t i = 0; i < in->threads[0].nevents; i++)
		if (in->threads[0].events[i].kind == PINBALL_EV_SIGNAL)
			return false;
	return true;
}

bool replay_threads_setup(void)
{
	const struct replay_input *in = rp.in;
	rp.threads = rt_calloc(in->nthreads, sizeof *rp.threads);
	rp.slice_thread = rt_calloc(in->nslices + 1, sizeof *rp.slice_thread);
	if (!rp.threads || !rp.slice_thread)
		return false;
	for (size_t i = 0; i < in->nthreads; i++)
		rp.threads[i].rt = &in->threads[i];
	for (size_t k = 0; k < in->nslices; k++) {
		size_t i = 0;
		while (i < in->nthreads && in->threads[i].tid != in->slices[k].tid)
			i++;
		if (i == in->nthreads)
			return false; /* pinball_verify made sure it exists */
		rp.slice_thread[k] = i;
		rp.threads[i].slices_left++;
	}
	rp.state_slot = jit_thread_slot_reserve();
	rp.budget_slot = jit_thread_slot_reserve();
	rp.guard_only = guard_is_enough(in);
	return rp.state_slot >= 0 && rp.budget_slot >= 0;
}

struct rthread *rthread_of(const struct jit_thread *t)
{
	return (struct rthread *)jit_thread_slot_get(t, rp.state_slot);
}

void diverged(const struct rthread *th, uint64_t icount, const char *fmt, ...)
{
	char what[512];
	va_list ap;
	va_start(ap, fmt);
	rt_vformat(what, sizeof what, fmt, ap);
	va_end(ap);
	jit_message_line("replay: DIVERGED at tid %u icount %lu: %s", th->rt->tid, icount, what);
	rt_exit_group(1);
	__builtin_unreachable();
}

size_t replay_threads_running(void)
{
	return rp.in->nthreads - rp.finished;
}

/* ---- binding JIT threads to the recorded ones ---- */

/* The app's signal actions and alternate stack as they were at region start (the
 * replayer's own dispositions, SIG_IGN inherited from nohup or a shell's `&`, are not the
 * app's: every action starts as the default one). */
static void restore_signal_actions(struct jit_thread *t)
{
	const struct jit_sigaction default_action = {0};
	for (int sig = 1; sig <= 64; sig++)
		if (sig != 9 && sig != 19) /* SIGKILL, SIGSTOP */
			jit_set_app_sigaction(t, sig, &default_action);
	for (size_t i = 0; i < rp.in->nsigactions; i++) {
		const struct pinball_sigaction *a = &rp.in->sigactions[i];
		struct jit_sigaction act = {a->handler, a->flags, a->restorer, a->mask};
		jit_set_app_sigaction(t, a->signo, &act);
	}
	const struct pinball_sigstack *ss = &rp.in->sigstack;
	jit_set_app_sigstack(t, &(struct jit_sigstack){ss->sp, ss->flags, ss->size});
}

static struct jit_regs regs_of(const struct replay_regs *r)
{
	struct jit_regs regs = {.rip = r->rip, .rflags = r->rflags, .fs_base = r->fs_base};
	memcpy(regs.gpr, r->gpr, sizeof regs.gpr);
	return regs;
}

void replay_thread_bind(struct jit_thread *t)
{
	struct rthread *th = rp.pending ? rp.pending : &rp.threads[0];
	rp.pending = NULL;
	__atomic_store_n(&th->thread, t, __ATOMIC_RELEASE);
	jit_thread_slot_set(t, rp.state_slot, (uint64_t)th);
	/* Its first block waits for its turn. */
	if (rp.guard_only)
		jit_thread_slot_set(t, rp.budget_slot, 0);
	else
		jit_set_icount_limit(t, jit_thread_icount(t));
	if (th != &rp.threads[0])
		return;
	/* The first thread: the process's signal state, and every other thread of the
	 * region's start. */
	restore_signal_actions(t);
	if (rp.opt.region_start)
		rp.opt.region_start(t);
	for (size_t i = 1; i < rp.in->nthreads; i++) {
		const struct replay_thread *rt = &rp.in->threads[i];
		if (!rt->at_start)
			continue;
		rp.pending = &rp.threads[i];
		jit_number_next_thread(rt->tid);
		struct jit_regs regs = regs_of(&rt->start);
		if (!jit_start_thread(t, &regs, rt->start.xsave, rt->start.xsave_len))
			jit_fatal("cannot create the replayed thread %u", rt->tid);
	}
}

/* ---- turns ---- */

static void wait_for_other_slice(void *arg)
{
	int seen = *(int *)arg;
	while (__atomic_load_n(&rp.cur, __ATOMIC_ACQUIRE) == seen)
		rt_syscall4(SYS_futex, (long)&rp.cur, FUTEX_WAIT_PRIVATE, seen, 0);
}

static void pass_turn(struct rthread *th)
{
	th->has_turn = false;
	th->slices_left--;
	__atomic_add_fetch(&rp.cur, 1, __ATOMIC_RELEASE);
	rt_syscall3(SYS_futex, (long)&rp.cur, FUTEX_WAKE_PRIVATE, 1 << 30);
}

/* Waits until the schedule's current slice is th's. Returns without the turn when th has
 * no slice left: then it must be at its end. */
static void take_turn(struct rthread *th, uint64_t icount)
{
	for (;;) {
		int cur = __atomic_load_n(&rp.cur, __ATOMIC_ACQUIRE);
		if (!th->slices_left || (size_t)cur >= rp.in->nslices)
			return;
		struct rthread *owner = &rp.threads[rp.slice_thread[cur]];
		if (owner == th) {
			th->has_turn = true;
			th->slice_end = icount + rp.in->slices[cur].instructions;
			return;
		}
		if (owner->finished || !owner->thread)
			diverged(th, icount, "the schedule gives the turn to thread %u, which %s",
				 owner->rt->tid, owner->finished ? "has ended" : "does not exist");
		jit_wait_unlocked(wait_for_other_slice, &cur);
	}
}

static void wait_for_ever(void *arg)
{
	(void)arg;
	int never = 0;
	for (;;)
		rt_syscall4(SYS_futex, (long)&never, FUTEX_WAIT_PRIVATE, 0, 0);
}

void replay_thread_park(void)
{
	jit_wait_unlocked(wait_for_ever, NULL);
	__builtin_unreachable();
}

void replay_thread_slice_done(struct rthread *th, uint64_t icount)
{
	if (th->has_turn && icount == th->slice_end)
		pass_turn(th);
}

/* ---- the end ---- */

static uint64_t recorded_instructions(void)
{
	uint64_t n = 0;
	for (size_t i = 0; i < rp.in->nthreads; i++)
		n += rp.in->threads[i].end_icount;
	return n;
}

static void compare_end(struct jit_thread *t, const struct rthread *th, uint64_t icount,
			bool compare_flags)
{
	const struct replay_regs *want = &th->rt->end;
	struct jit_regs got;
	jit_thread_get_regs(t, &got);
	static const char *const names[16] = {"rax", "rcx", "rdx", "rbx", "rsp", "rbp",
					      "rsi", "rdi", "r8",  "r9",  "r10", "r11",
					      "r12", "r13", "r14", "r15"};
	for (int i = 0; i < 16; i++)
		if (got.gpr[i] != want->gpr[i])
			diverged(th, icount, "%s is 0x%lx at the end, recorded 0x%lx", names[i],
				 got.gpr[i], want->gpr[i]);
	if (got.rip != want->rip)
		diverged(th, icount, "rip is 0x%lx at the end, recorded 0x%lx", got.rip, want->rip);
	if (compare_flags && ((got.rflags ^ want->rflags) & COMPARED_FLAGS))
		diverged(th, icount, "rflags is 0x%lx at the end, recorded 0x%lx", got.rflags,
			 want->rflags);
	if (got.fs_base != want->fs_base)
		diverged(th, icount, "the fs base is 0x%lx at the end, recorded 0x%lx", got.fs_base,
			 want->fs_base);
	if (rp.in->has_signal_state && jit_thread_sigmask(t) != want->signal_mask)
		diverged(th, icount, "the signal mask is 0x%lx at the end, recorded 0x%lx",
			 jit_thread_sigmask(t), want->signal_mask);
	if (th->next != th->rt->nevents)
		diverged(th, icount, "%lu recorded events were not replayed",
			 th->rt->nevents - th->next);
}

void replay_thread_finish(struct jit_thread *t, struct rthread *th, uint64_t icount,
			  bool compare_flags)
{
	if (icount != th->rt->end_icount)
		diverged(th, icount, "the thread ends here, the recording at icount %lu",
			 th->rt->end_icount);
	compare_end(t, th, icount, compare_flags);
	th->finished = true;
	if (th->has_turn)
		pass_turn(th);
	if (++rp.finished < rp.in->nthreads)
		return;
	if (rp.opt.observer)
		rp.opt.observer->end(t, icount, rp.opt.observer->arg);
	int death = rt_signal_number(rp.in->death_signal);
	if (death && rp.opt.death)
		rp.opt.death(t, death);
	jit_message_line("replay: OK %lu instructions, %zu threads, %lu syscalls injected%s%s%s",
			 recorded_instructions(), rp.in->nthreads, rp.syscalls,
			 rp.in->death_signal[0] ? "; then the app died of " : "",
			 rp.in->death_signal, rp.in->death_signal[0] ? ", as recorded" : "");
	jit_process_exit(0);
}

/* ---- block starts ---- */

/* The count of the thread's next recorded signal (UINT64_MAX: none). Its index is kept: it
 * moves forward only, as th->next does (a scan from th->next at every block start's
 * callout went through thousands of syscalls each time). */
static uint64_t next_signal(struct rthread *th)
{
	size_t i = th->signal_at > th->next ? th->signal_at : th->next;
	while (i < th->rt->nevents && th->rt->events[i].kind != PINBALL_EV_SIGNAL)
		i++;
	th->signal_at = i;
	return i < th->rt->nevents ? th->rt->events[i].icount : UINT64_MAX;
}

static void deliver_signal(struct jit_thread *t, struct rthread *th, uint64_t icount)
{
	const struct replay_event *e =
	    expect_event(th, icount, PINBALL_EV_SIGNAL, "a signal is due");
	struct jit_sigaction act;
	uint64_t old_mask;
	memcpy(&act, e->signal.bytes + 128, sizeof act);
	memcpy(&old_mask, e->signal.bytes + 128 + sizeof act, sizeof old_mask);
	if (e->signal.len < 128 + sizeof act + sizeof old_mask ||
	    !jit_deliver_signal(t, e->signal.signo, e->signal.bytes, &act, old_mask))
		diverged(th, icount, "the recorded signal %d cannot be delivered", e->signal.signo);
}

/* The thread's first block: its mask, and the return of the syscall it was in when the
 * region started (its first event), once it has the turn. */
static void begin(struct jit_thread *t, struct rthread *th)
{
	if (th->rt->at_start)
		jit_thread_set_sigmask(t, th->rt->start.signal_mask);
	if (th->rt->name[0]) /* as gdb's `info threads` showed it (a born thread inherits) */
		rt_syscall2(SYS_prctl, PR_SET_NAME, (long)th->rt->name);
	if (th->rt->start_in_syscall) {
		const struct replay_event *e =
		    expect_event(th, 0, PINBALL_EV_SYSCALL, "the thread's syscall returns");
		long a[6];
		for (int i = 0; i < 6; i++)
			a[i] = (long)e->args[i];
		long result = replay_inject_syscall(t, th, 0, (long)e->nr, a, e);
		jit_thread_set_gpr(t, JIT_GPR_RAX, (uint64_t)result);
	}
	th->begun = true;
}

/* Blocks whose flags are live at entry, by start pc (a small set: it is only consulted for
 * the block where a thread ends). */
static uint64_t live_flag_blocks[4096];

void replay_note_flags_live(uint64_t pc)
{
	live_flag_blocks[(pc >> 2) % 4096] = pc;
}

static bool flags_live_at(uint64_t pc)
{
	return live_flag_blocks[(pc >> 2) % 4096] == pc;
}

static void ran_past(struct rthread *th, uint64_t icount)
{
	diverged(th, icount, "the thread ran past icount %lu, where the recording ends it",
		 th->rt->end_icount);
}

void replay_thread_guard(const struct jit_callout *c)
{
	struct jit_thread *t = c->thread;
	struct rthread *th = rthread_of(t);
	uint64_t icount = jit_callout_icount(c);
	if (!th->begun) {
		take_turn(th, icount);
		begin(t, th);
		__atomic_store_n(&rp.began, true, __ATOMIC_RELEASE);
	}
	if (icount > th->rt->end_icount)
		ran_past(th, icount);
	/* The blocks translated before the beginning keep their check: it never fires again. */
	jit_thread_slot_set(t, rp.budget_slot, UINT64_C(1) << 62);
}

struct jit_thread *replay_guard_watch(void *arg)
{
	(void)arg;
	static bool asked;
	struct rthread *th = &rp.threads[0];
	struct jit_thread *t = __atomic_load_n(&th->thread, __ATOMIC_ACQUIRE);
	if (asked || !t || !__atomic_load_n(&rp.began, __ATOMIC_ACQUIRE) ||
	    __atomic_load_n(&th->finished, __ATOMIC_ACQUIRE) ||
	    jit_thread_icount(t) <= th->rt->end_icount)
		return NULL;
	asked = true;
	return t;
}

void replay_thread_guard_stop(struct jit_thread *t, uint64_t icount)
{
	struct rthread *th = rthread_of(t);
	if (rp.guard_only && th && th->begun && !th->finished && icount > th->rt->end_icount)
		ran_past(th, icount);
}

bool replay_guarded(void)
{
	return rp.guard_only;
}

void replay_thread_block_start(const struct jit_callout *c)
{
	struct jit_thread *t = c->thread;
	struct rthread *th = rthread_of(t);
	uint64_t icount = jit_callout_icount(c);
	const struct replay_thread *rt = th->rt;
	if (th->finished) {
		jit_callout_abandon_block(c);
		replay_thread_park();
	}
	for (;;) {
		if (!th->has_turn)
			take_turn(th, icount);
		if (!th->begun)
			begin(t, th);
		uint64_t signal = next_signal(th);
		if (signal == icount) {
			deliver_signal(t, th, icount);
			/* The block does not run (its count is given back to the budget too): the
			 * handler's first block checks again. */
			jit_set_icount_limit(t, icount);
			return;
		}
		if (icount == rt->end_icount && th->next == rt->nevents) {
			jit_callout_abandon_block(c);
			replay_thread_finish(t, th, icount, flags_live_at(c->pc));
			replay_thread_park();
		}
		if (!th->has_turn)
			diverged(th, icount,
				 "the schedule has no turn left for this thread, which "
				 "ends at icount %lu",
				 rt->end_icount);
		if (icount == th->slice_end) {
			pass_turn(th);
			continue;
		}
		uint64_t stop = th->slice_end;
		if (signal < stop)
			stop = signal;
		if (rt->end_icount < stop)
			stop = rt->end_icount;
		if (icount > stop)
			diverged(th, icount,
				 "the thread ran past icount %lu, where the recording %s", stop,
				 stop == signal		  ? "delivers a signal"
				 : stop == rt->end_icount ? "ends it"
							  : "gives the turn on");
		/* The block is cut short when the stop is inside it. */
		jit_set_icount_limit(t, stop);
		if (c->block_remaining > stop - icount)
			jit_callout_limit_block(c, (uint32_t)(stop - icount));
		return;
	}
}

#include "replay.h"

#include <signal.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/uio.h>

#include "echo.h"
#include "inject_memory.h"
#include "instrument.h"
#include "jit_app.h"
#include "jit_messages.h"
#include "nondet.h"
#include "rt_format.h"
#include "rt_syscall.h"
#include "syscall_model.h"

/* Flags that the replay must reproduce exactly (the status flags and DF). */
#define COMPARED_FLAGS 0xcd5ull

static struct {
	const struct replay_input *in;
	struct replay_options opt;
	size_t next; /* next event */
	uint64_t syscalls;
	int budget_slot;
} rp;

static const char *name_of(long nr)
{
	const char *n = syscall_name(nr);
	return n ? n : "?";
}

_Noreturn static void diverged(const struct jit_thread *t, uint64_t icount, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void diverged(const struct jit_thread *t, uint64_t icount, const char *fmt, ...)
{
	char what[512];
	va_list ap;
	va_start(ap, fmt);
	rt_vformat(what, sizeof what, fmt, ap);
	va_end(ap);
	rt_dprintf(jit_messages_fd(), "replay: DIVERGED at tid %u icount %lu: %s\n",
		   jit_thread_id(t), icount, what);
	rt_exit_group(1);
	__builtin_unreachable();
}

/* The end of the region: compare the thread's state with the recorded end state. At a
 * block start reached through the budget check, the flags are compared only when the block
 * may read them (otherwise the check itself may have changed them, and the app never looks). */
_Noreturn static void finish(struct jit_thread *t, uint64_t icount, bool compare_flags)
{
	const struct replay_regs *want = &rp.in->end;
	struct jit_regs got;
	jit_thread_get_regs(t, &got);
	static const char *const names[16] = {"rax", "rcx", "rdx", "rbx", "rsp", "rbp",
					      "rsi", "rdi", "r8",  "r9",  "r10", "r11",
					      "r12", "r13", "r14", "r15"};
	for (int i = 0; i < 16; i++)
		if (got.gpr[i] != want->gpr[i])
			diverged(t, icount, "%s is 0x%lx at the end, recorded 0x%lx", names[i],
				 got.gpr[i], want->gpr[i]);
	if (got.rip != want->rip)
		diverged(t, icount, "rip is 0x%lx at the end, recorded 0x%lx", got.rip, want->rip);
	if (compare_flags && ((got.rflags ^ want->rflags) & COMPARED_FLAGS))
		diverged(t, icount, "rflags is 0x%lx at the end, recorded 0x%lx", got.rflags,
			 want->rflags);
	if (got.fs_base != want->fs_base)
		diverged(t, icount, "the fs base is 0x%lx at the end, recorded 0x%lx", got.fs_base,
			 want->fs_base);
	if (rp.in->has_signal_state && jit_thread_sigmask(t) != want->signal_mask)
		diverged(t, icount, "the signal mask is 0x%lx at the end, recorded 0x%lx",
			 jit_thread_sigmask(t), want->signal_mask);
	if (rp.next != rp.in->nevents)
		diverged(t, icount, "%lu recorded events were not replayed",
			 rp.in->nevents - rp.next);
	rt_dprintf(jit_messages_fd(),
		   "replay: OK %lu instructions, 1 threads, %lu syscalls injected\n", icount,
		   rp.syscalls);
	jit_thread_set_icount(t, icount); /* for the tools' reports at exit */
	jit_process_exit(0);
}

static const struct replay_event *expect_event(struct jit_thread *t, uint64_t icount,
					       enum pinball_event_kind kind, const char *what)
{
	if (rp.next == rp.in->nevents)
		diverged(t, icount, "%s, but the recording has no more events", what);
	const struct replay_event *e = &rp.in->events[rp.next];
	if (e->kind != kind || e->icount != icount) {
		if (e->kind == PINBALL_EV_SYSCALL)
			diverged(t, icount, "%s, but the recording has syscall %s at icount %lu",
				 what, name_of((long)e->nr), e->icount);
		diverged(t, icount, "%s, but the recording has %s at icount %lu", what,
			 pinball_event_name(e->kind), e->icount);
	}
	rp.next++;
	return e;
}

static bool syscall_pre(struct jit_thread *t, long nr, const long a[6], void *arg)
{
	(void)arg;
	uint64_t icount = jit_thread_icount(t);
	char what[64];
	rt_format(what, sizeof what, "the replay made syscall %s", name_of(nr));
	const struct replay_event *e = expect_event(t, icount, PINBALL_EV_SYSCALL, what);
	if ((long)e->nr != nr)
		diverged(t, icount, "the replay made syscall %s, the recording %s", name_of(nr),
			 name_of((long)e->nr));
	struct mem_range ranges[SYSCALL_MAX_RANGES];
	if (syscall_writes(nr, a, e->result, ranges) < 0)
		jit_message("warning: syscall %s at icount %lu is not modelled: its memory effects "
			    "beyond the result were not recorded",
			    name_of(nr), icount);
	rp.syscalls++;
	enum syscall_replay kind = syscall_replay_kind(nr, a);
	if (kind == SYSCALL_REPLAY_EXIT)
		finish(t, icount, true);
	if (kind == SYSCALL_REPLAY_RUNTIME)
		return false; /* the runtime emulates it from the app's state, as it did */
	if (e->result == -JIT_ERESTARTSYS) {
		/* interrupted by a signal and restarted: back to the syscall instruction */
		struct jit_regs regs;
		jit_thread_get_regs(t, &regs);
		regs.rip -= 2;
		jit_thread_set_regs(t, &regs);
		jit_thread_set_gpr(t, JIT_GPR_RAX, (uint64_t)nr);
		rp.syscalls++;
		return true;
	}
	long result = e->result;
	char why[256];
	const char *bad = kind == SYSCALL_REPLAY_MEMORY_MAP
			      ? inject_memory_change(rp.in, nr, a, e, &result, why, sizeof why)
			      : inject_writes(e, why, sizeof why);
	if (bad)
		diverged(t, icount, "%s: %s", name_of(nr), bad);
	if (result != e->result)
		diverged(t, icount, "%s gave 0x%lx, recorded 0x%lx", name_of(nr), result,
			 e->result);
	if (rp.opt.echo)
		echo_syscall(rp.in, e, nr, a);
	jit_thread_set_gpr(t, JIT_GPR_RAX, (uint64_t)result);
	return true;
}

static void nondet_callout(const struct jit_callout *c)
{
	uint64_t icount = jit_callout_icount(c);
	const struct replay_event *e =
	    expect_event(c->thread, icount, PINBALL_EV_INSN, "a non-deterministic instruction ran");
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
		diverged(c->thread, icount, "a different non-deterministic instruction ran (%s)",
			 pinball_insn_name(e->insn.kind));
}

/* Blocks whose flags are live at entry, by start pc (a small set: it is only consulted for
 * the block where the region ends). */
static uint64_t live_flag_blocks[4096];

static bool flags_live_at(uint64_t pc)
{
	return live_flag_blocks[(pc >> 2) % 4096] == pc;
}

/* The next instruction count where the replay must stop between blocks: a recorded signal
 * delivery, or the region's end (where a region that ends with the process exits). */
static uint64_t next_stop(void)
{
	for (size_t i = rp.next; i < rp.in->nevents; i++)
		if (rp.in->events[i].kind == PINBALL_EV_SIGNAL)
			return rp.in->events[i].icount;
	return rp.in->end_icount;
}

/* counted: the thread's count including the block it is at (budgets count down from the
 * block's start, like the count they mirror). */
static void arm_stop(struct jit_thread *t, uint64_t counted)
{
	uint64_t stop = next_stop();
	uint64_t budget = stop > counted ? stop - counted : 0;
	jit_thread_slot_set(t, rp.budget_slot, budget);
}

static void deliver_recorded_signal(const struct jit_callout *c, uint64_t icount)
{
	const struct replay_event *e =
	    expect_event(c->thread, icount, PINBALL_EV_SIGNAL, "a signal is due");
	struct jit_sigaction act;
	uint64_t old_mask;
	memcpy(&act, e->signal.bytes + 128, sizeof act);
	memcpy(&old_mask, e->signal.bytes + 128 + sizeof act, sizeof old_mask);
	if (e->signal.len < 128 + sizeof act + sizeof old_mask ||
	    !jit_deliver_signal(c->thread, e->signal.signo, e->signal.bytes, &act, old_mask))
		diverged(c->thread, icount, "the recorded signal %d cannot be delivered",
			 e->signal.signo);
}

/* At the block where a stop point is reached: a recorded signal, or the region's end. */
static void end_check(const struct jit_callout *c)
{
	uint64_t icount = jit_callout_icount(c);
	uint64_t stop = next_stop();
	bool signal_due = rp.next < rp.in->nevents &&
			  rp.in->events[rp.next].kind == PINBALL_EV_SIGNAL &&
			  rp.in->events[rp.next].icount == stop;
	if (rp.in->ends_at_exit && !signal_due)
		diverged(c->thread, icount,
			 "the recording exits at icount %lu; the replay went past it", stop);
	if (icount != stop)
		diverged(c->thread, icount, "the recording stops at icount %lu, inside a block",
			 stop);
	if (stop == rp.in->end_icount &&
	    (rp.next == rp.in->nevents || rp.in->events[rp.next].kind != PINBALL_EV_SIGNAL ||
	     rp.in->events[rp.next].icount != icount))
		finish(c->thread, icount, flags_live_at(c->pc));
	deliver_recorded_signal(c, icount);
	arm_stop(c->thread, jit_thread_icount(c->thread));
}

static void instrument(struct jit_block *b, void *arg)
{
	(void)arg;
	if (jit_block_flags_live(b))
		live_flag_blocks[(jit_block_pc(b, 0) >> 2) % 4096] = jit_block_pc(b, 0);
	nondet_instrument_block(b, nondet_callout);
	jit_insert_budget_check(b, rp.budget_slot, end_check, NULL);
}

/* The app's signal actions, alternate stack and mask as they were at region start. */
static void restore_signal_state(struct jit_thread *t)
{
	/* The replayer's own dispositions (SIG_IGN inherited from nohup or a shell's `&`)
	 * are not the app's: every action starts as the default one. */
	const struct jit_sigaction default_action = {0};
	for (int sig = 1; sig <= 64; sig++)
		if (sig != SIGKILL && sig != SIGSTOP)
			jit_set_app_sigaction(t, sig, &default_action);
	for (size_t i = 0; i < rp.in->nsigactions; i++) {
		const struct pinball_sigaction *a = &rp.in->sigactions[i];
		struct jit_sigaction act = {a->handler, a->flags, a->restorer, a->mask};
		jit_set_app_sigaction(t, a->signo, &act);
	}
	const struct pinball_sigstack *ss = &rp.in->sigstack;
	jit_set_app_sigstack(t, &(struct jit_sigstack){ss->sp, ss->flags, ss->size});
	jit_thread_set_sigmask(t, rp.in->start.signal_mask);
}

static void thread_start(struct jit_thread *t, uint64_t pc, void *arg)
{
	(void)pc;
	(void)arg;
	restore_signal_state(t);
	arm_stop(t, 0);
}

/* The app dies of a signal the recording did not see it die of. */
static void app_dies(struct jit_thread *t, int sig, void *arg)
{
	(void)arg;
	struct jit_regs regs;
	jit_thread_get_regs(t, &regs);
	diverged(t, jit_thread_icount(t), "the app died of signal %d near pc 0x%lx", sig, regs.rip);
}

static const struct jit_client client = {
    .name = "replay",
    .app_dies = app_dies,
    .instrument_block = instrument,
    .syscall_pre = syscall_pre,
    .thread_start = thread_start,
};

void replay_start(const struct replay_input *in, const struct replay_options *o)
{
	rp.in = in;
	rp.opt = *o;
	jit_enable_icount();
	rp.budget_slot = jit_thread_slot_reserve();
	jit_register_client(&client);
}

#include "recorder.h"

#include <errno.h>
#include <linux/sched.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>

#include "first_touch.h"
#include "instrument.h"
#include "jit_app.h"
#include "jit_messages.h"
#include "nondet.h"
#include "output_echo.h"
#include "recorder_internal.h"
#include "region_snapshot.h"
#include "rt_alloc.h"
#include "rt_format.h"
#include "rt_string.h"
#include "rt_syscall.h"
#include "run_failure.h"
#include "shared_with_child.h"
#include "syscall_model.h"
#include "written.h"

struct recorder_state rec;

/* The thread that caught the event of the pending transition. */
static struct jit_thread *transition_thread;

/* ---- region start ---- */

/* Step 3 of the transition, world stopped: the memory, then every thread's start. */
static void begin_region(struct jit_thread *t, uint64_t icount)
{
	rt_format(rec.path, sizeof rec.path, "%s.%u", rec.basename, rec.region);
	region_snapshot_begin(t, rec.path, &rec.cause, rec.fat);
	if (!rec.fat)
		first_touch_begin();
	rec.state = IN;
	region_threads_begin(t, icount);
}

/* ---- region end ---- */

static void abandon_region(void);

/* The region's pinball could not be written (its writer said why): what it wrote goes, the
 * app goes on unrecorded (a build keeps building), and the run's end says it failed. */
static void pinball_failed(const char *err)
{
	jit_message("error: %s", err);
	abandon_region();
	rec.state = OUT;
	rec.disabled = true;
	run_failure_note();
}

/* World stopped (or the process exits or execs): every thread's end state, then the
 * pinball. t ends inside syscall nr when nr >= 0. */
static void end_region(struct jit_thread *t, uint64_t icount, long nr)
{
	if (!rec.fat)
		first_touch_end();
	region_threads_end(t, icount, nr);
	struct record *r = must_new(REC_FINISH, 0);
	r->u.finish.cause = rec.cause;
	r->u.finish.ignored_events = rec.ignored_events;
	record_push(r);
	const char *err = record_queue_wait_done();
	if (err[0]) {
		pinball_failed(err);
		return;
	}
	written_add(record_queue_written());
	rec.state = OUT;
	rec.region++;
}

/* ---- events ---- */

static void set_cause(const struct control_event_info *ev)
{
	rt_strlcpy(rec.cause_text, ev->alarm ? ev->alarm->text : "default-start",
		   sizeof rec.cause_text);
	rec.cause = (struct pinball_cause){.kind = ev->origin ? ev->origin : "control",
					   .spec = rec.cause_text,
					   .tid = ev->tid,
					   .icount = ev->icount};
}

void recorder_event(const struct control_event_info *ev)
{
	bool start = ev->event == CONTROL_EVENT_START;
	bool wanted = (start && rec.state == OUT) || (!start && rec.state == IN);
	if (rec.disabled || ev->event == CONTROL_EVENT_THREADID || !wanted) {
		if (rec.state != OUT)
			rec.ignored_events++;
		control_engine_log_ignored(ev);
		return;
	}
	set_cause(ev);
	if (start) /* what arrives from now on, the transition's time included, is the region's */
		rec.ignored_events = 0;
	rec.state = start ? TO_IN : TO_OUT;
	/* Step 1 of the transition: the triggering thread stops at the end of its block. */
	transition_thread = ev->thread;
	jit_request_safe_point(ev->thread);
}

/* Steps 2 to 4 on the triggering thread, at the end of its block: every other thread
 * stops at the end of its own (or is in a syscall); the mode flips; all resume (when this
 * one returns to the app) with the instrumentation of the new mode. On the others, their
 * safe point of a region's start. */
static void safe_point(struct jit_thread *t, uint64_t icount, void *arg)
{
	(void)arg;
	if (t != transition_thread || (rec.state != TO_IN && rec.state != TO_OUT)) {
		region_thread_safe_point(t, icount);
		return;
	}
	transition_thread = NULL;
	jit_stop_the_world(t);
	if (rec.state == TO_IN)
		begin_region(t, icount);
	else
		end_region(t, icount, -1);
	jit_request_retranslation();
}

struct jit_thread *recorder_watch(void *arg)
{
	(void)arg;
	return region_threads_watch();
}

/* ---- system calls ---- */

/* Pages stay withheld until the region's end takes effect: the triggering thread finishes
 * its block after a stop event (TO_OUT), and that block belongs to the region. */
static bool grant_access(uint64_t addr)
{
	return recording() && !rec.fat && first_touch_page(addr);
}

static bool is_thread_clone(long nr, const long args[6])
{
	return nr == SYS_clone && (args[0] & CLONE_THREAD);
}

/* The process ends in the region: the exit is the region's last event. */
static void exit_in_region(struct jit_thread *t, long nr, const long args[6])
{
	record_syscall(t, nr, args, 0);
	jit_thread_set_gpr(t, JIT_GPR_RAX, (uint64_t)nr);
	rec.cause = (struct pinball_cause){.kind = "exit",
					   .spec = "exit_group",
					   .tid = jit_thread_id(t),
					   .icount = jit_thread_icount(t)};
	end_region(t, jit_thread_icount(t), -1);
}

/* The process image ends in the region: the region ends inside the execve, which the
 * replay does not make. */
static void exec_in_region(struct jit_thread *t, long nr)
{
	rec.cause = (struct pinball_cause){.kind = "exec",
					   .spec = nr == SYS_execve ? "execve" : "execveat",
					   .tid = jit_thread_id(t),
					   .icount = jit_thread_icount(t)};
	end_region(t, jit_thread_icount(t), nr);
}

static bool is_exec(long nr)
{
	return nr == SYS_execve || nr == SYS_execveat;
}

/* A descriptor the kernel serves without waiting for anyone: a regular file, a block
 * device, or a memory device (/dev/null, /dev/zero, /dev/urandom: major 1). */
static bool fd_never_waits(long fd)
{
	struct stat st; /* the kernel's layout on x86-64 */
	if (rt_syscall2(SYS_fstat, fd, (long)&st))
		return false;
	uint64_t major = ((st.st_rdev >> 8) & 0xfff) | ((st.st_rdev >> 32) & ~0xfffull);
	return S_ISREG(st.st_mode) || S_ISBLK(st.st_mode) || (S_ISCHR(st.st_mode) && major == 1);
}

/* Whether the call may wait for another thread of the app (the baton must go on). */
static bool may_wait(long nr, const long args[6])
{
	int fd_arg;
	switch (syscall_wait_kind(nr, args, &fd_arg)) {
	case SYSCALL_WAITS_NEVER:
		return false;
	case SYSCALL_WAITS_ON_FD:
		return !fd_never_waits(args[fd_arg]);
	default:
		return true;
	}
}

static bool syscall_pre(struct jit_thread *t, long nr, const long args[6], void *arg)
{
	(void)arg;
	struct exit_words *words = region_thread_exit_words(t);
	if (words && nr == SYS_set_tid_address)
		words->clear_tid = (uint64_t)args[0];
	if (words && nr == SYS_set_robust_list)
		words->robust_list = (uint64_t)args[0];
	if (words && nr == SYS_exit && jit_thread_live_count() > 1) {
		thread_exit_writes(t, args);
		return false;
	}
	if (!recording())
		return false;
	bool recorded = region_thread_records(t);
	if (recorded && syscall_replay_kind(nr, args) == SYSCALL_REPLAY_REFUSED) {
		record_refused(t, nr, args);
		return true;
	}
	if (!rec.fat)
		prepare_memory(nr, args);
	if (nr == SYS_exit_group || (nr == SYS_exit && jit_thread_live_count() == 1)) {
		exit_in_region(t, nr, args);
		return false;
	}
	if (!recorded)
		return false;
	if (record_echoed_copy(t, nr, args))
		return true;
	/* An exec keeps the baton: should it replace the process, the region ends in it. So
	 * does a call that cannot wait for another thread (the others then wait a little
	 * longer, and no hand-over costs a wake-up: sort's writes to /dev/null made thousands). */
	if (!is_exec(nr) && may_wait(nr, args))
		region_thread_syscall_enter(t);
	return false;
}

/* The kernel could not reach some memory: maybe a page withheld for first-touch recording
 * that prepare_memory did not foresee (a pointer inside a structure, a large buffer of a
 * syscall it does not know). From now on the region records every page as it is. */
static bool syscall_efault(struct jit_thread *t, long nr, const long args[6], void *arg)
{
	(void)t;
	(void)args;
	(void)arg;
	if (!recording() || rec.fat || !first_touch_all())
		return false;
	const char *name = syscall_name(nr);
	jit_message("warning: syscall %s failed on withheld memory: every page of the region is "
		    "recorded from now on",
		    name ? name : "?");
	return true;
}

static bool is_fork(long nr, const long args[6])
{
	return nr == SYS_fork || nr == SYS_vfork || (nr == SYS_clone && !(args[0] & CLONE_THREAD));
}

/* The thread a clone just made (its thread_start hook ran on the parent). */
static struct jit_thread *newest_thread;

static void syscall_post(struct jit_thread *t, long nr, const long args[6], long result, void *arg)
{
	(void)arg;
	if (rec.disabled)
		return;
	if (is_fork(nr, args) && result == 0) {
		/* The child has no writer thread: it is not recorded, and the pages withheld
		 * for first-touch recording are its own again. Should it end without an exec,
		 * the user hears that nothing of it was recorded. Its region is over: the baton
		 * it would wait for at its next slice check is held, in its copy of our memory,
		 * by threads it does not have; its translations lose the checks. */
		if (recording() && !rec.fat)
			first_touch_end();
		if (recording())
			written_forked_in_region(rec.region);
		if (rec.state != OUT)
			jit_request_retranslation_in_forked_child(t);
		rec.disabled = true;
		rec.state = OUT;
		rec.region = 0; /* its images after an exec are pinballs of another process */
		return;
	}
	if (is_fork(nr, args) && result > 0 && recording() && nr != SYS_vfork &&
	    !(nr == SYS_clone && (args[0] & CLONE_VM)))
		shared_with_child_check(result);
	bool child = is_thread_clone(nr, args) && result > 0 && newest_thread;
	if (child && (args[0] & CLONE_CHILD_CLEARTID) && region_thread_exit_words(newest_thread))
		region_thread_exit_words(newest_thread)->clear_tid = (uint64_t)args[3];
	if (!recording())
		return;
	region_thread_syscall_return(t, nr);
	record_syscall(t, nr, args, result);
	if (child && region_thread_born(newest_thread))
		record_thread_create(t, jit_thread_id(newest_thread), (uint64_t)args[0]);
	region_thread_resume(t, result);
}

/* ---- signals and instructions ---- */

/* An asynchronous signal delivered in the region: the replayer must deliver it at the same
 * instruction count, with the same siginfo, action and saved mask. */
static void signal_delivery(struct jit_thread *t, int sig, const void *info,
			    const struct jit_sigaction *act, uint64_t old_mask, void *arg)
{
	(void)arg;
	if (!region_thread_records(t))
		return;
	enum { INFO = 128 };
	struct record *r = must_new(REC_EVENT, INFO + sizeof *act + sizeof old_mask);
	memcpy(r->data, info, INFO);
	memcpy(r->data + INFO, act, sizeof *act);
	memcpy(r->data + INFO + sizeof *act, &old_mask, sizeof old_mask);
	r->u.event.tid = jit_thread_id(t);
	r->u.event.ev =
	    (struct pinball_event){.icount = region_icount(t), .kind = PINBALL_EV_SIGNAL};
	r->u.event.ev.signal.signo = sig;
	r->u.event.ev.signal.siginfo = r->data;
	r->u.event.ev.signal.siginfo_len = INFO + sizeof *act + sizeof old_mask;
	record_push(r);
}

static void nondet_callout(const struct jit_callout *c)
{
	struct nondet_result v;
	nondet_execute(c->thread, (uintptr_t)c->arg, &v);
	if (!region_thread_records(c->thread))
		return;
	struct record *r = must_new(REC_EVENT, 0);
	r->u.event.tid = jit_thread_id(c->thread);
	r->u.event.ev =
	    (struct pinball_event){.icount = region_callout_icount(c), .kind = PINBALL_EV_INSN};
	r->u.event.ev.insn.kind = (enum pinball_insn_kind)v.kind;
	r->u.event.ev.insn.rax = v.rax;
	r->u.event.ev.insn.rbx = v.rbx;
	r->u.event.ev.insn.rcx = v.rcx;
	r->u.event.ev.insn.rdx = v.rdx;
	r->u.event.ev.insn.value = v.value;
	r->u.event.ev.insn.dest_reg = v.dest_reg;
	r->u.event.ev.insn.cf = v.cf;
	r->u.event.ev.insn.in_eax = v.in_eax;
	r->u.event.ev.insn.in_ecx = v.in_ecx;
	record_push(r);
}

/* In a region, every non-deterministic instruction is run by the recorder, which keeps
 * its result for the replayer, and blocks where code can loop check the time slice. */
static void instrument(struct jit_block *b, void *arg)
{
	(void)arg;
	if (!recording())
		return;
	nondet_instrument_block(b, nondet_callout);
	region_instrument_block(b);
}

/* Translations kept across runs (-jit:persist): out of a region the recorder inserts
 * nothing; in one, callouts at non-deterministic instructions (kept: their argument is
 * the instruction's kind), and slice checks by the threads' state once they share the
 * time (then nothing is kept). */
static uint64_t keep_tag(void *arg)
{
	(void)arg;
	enum { OUT_OF_REGION = 1, IN_REGION = 2 };
	if (!recording())
		return OUT_OF_REGION;
	return region_slices_checked() ? 0 : IN_REGION;
}

static void thread_start(struct jit_thread *t, uint64_t pc, void *arg)
{
	(void)arg;
	region_thread_new(t, pc);
	newest_thread = t;
}

/* The next image of this process numbers its regions after this one's. */
static char next_region_text[24];
static char *exec_knobs[] = {"-log:first_region", next_region_text, NULL};

static void before_exec(struct jit_thread *t, void *arg)
{
	(void)arg;
	if (recording())
		exec_in_region(t, (long)jit_thread_gpr(t, JIT_GPR_RAX));
	rt_format(next_region_text, sizeof next_region_text, "%u", rec.region);
	written_tell(false);
}

/* The app dies of a signal: the region cannot be finished (the thread may be anywhere,
 * holding any lock), and what it wrote so far must not stay behind. */
/* Whether the region can end where the dying thread stands: before the instruction that
 * faulted (it was running app code, so it holds the baton and every other thread waits),
 * or inside a syscall when it is the only thread (no other can be running meanwhile). A
 * signal from outside caught in the middle of a block leaves no known state. */
static bool death_ends_region(const struct jit_thread *t, enum jit_death_place where)
{
	if (where == JIT_DEATH_AT_INSN)
		return region_thread_holds_baton(t);
	return where == JIT_DEATH_IN_SYSCALL && jit_thread_live_count() == 1;
}

/* The app dies of a signal in the region: the region ends there when it can, and its
 * pinball is finished, with the signal as its stop (the replay ends before the faulting
 * instruction, or inside the syscall); otherwise the unfinished pinball is dropped (the
 * thread may hold any lock: the writer is asked without one). */
static void app_dies(struct jit_thread *t, int sig, enum jit_death_place where, void *arg)
{
	(void)arg;
	if (recording() && death_ends_region(t, where)) {
		long nr = -1;
		if (where == JIT_DEATH_IN_SYSCALL)
			jit_thread_in_syscall(t, &nr);
		char name[16];
		rt_strlcpy(rec.cause_text, rt_signal_name(sig, name), sizeof rec.cause_text);
		rec.cause = (struct pinball_cause){.kind = "signal",
						   .spec = rec.cause_text,
						   .tid = jit_thread_id(t),
						   .icount = jit_thread_icount(t)};
		end_region(t, jit_thread_icount(t), nr);
	} else if (recording()) {
		record_queue_abort_now(2000);
		jit_message("the app died of signal %d in region %u where its state is not known: "
			    "pinball %s not written",
			    sig, rec.region, rec.path);
	}
	written_tell(true);
}

static void at_exit(int status, void *arg)
{
	(void)status;
	(void)arg;
	written_tell(true);
	if (run_failure_seen())
		jit_set_exit_status(1);
}

/* Out of a region the recorder does nothing a vfork child could disturb: it may run in our
 * memory (and posix_spawn report exec errors). In a region it runs in a copy, unrecorded. */
static bool vfork_shares_memory(void *arg)
{
	(void)arg;
	return rec.disabled || rec.state == OUT;
}

static const struct jit_client client = {
    .name = "recorder",
    .vfork_shares_memory = vfork_shares_memory,
    .instrument_block = instrument,
    .keep_tag = keep_tag,
    .kept_callouts = (const jit_callout_fn[]){nondet_callout, NULL},
    .thread_start = thread_start,
    .syscall_pre = syscall_pre,
    .syscall_efault = syscall_efault,
    .syscall_post = syscall_post,
    .safe_point = safe_point,
    .signal_delivery = signal_delivery,
    .before_exec = before_exec,
    .at_exit = at_exit,
    .app_dies = app_dies,
};

/* A fatal error in a region: nothing that looks like a pinball may stay behind. */
static void abandon_region(void)
{
	if (!region_on())
		return;
	struct record *r = record_new(REC_ABORT, 0);
	if (!r)
		return;
	record_push(r);
	record_queue_wait_done();
}

void recorder_status(uint32_t *region, bool *in_region)
{
	*region = __atomic_load_n(&rec.region, __ATOMIC_RELAXED);
	*in_region = recording();
}

void recorder_start(const struct recorder_options *o)
{
	jit_on_fatal(abandon_region);
	rec.basename = o->basename;
	rec.region = o->first_region;
	written_init(o->quiet, o->told_from);
	jit_set_exec_knobs(exec_knobs);
	rec.fat = o->fat;
	rec.slice = o->slice ? o->slice : RECORDER_DEFAULT_SLICE;
	rec.region_observer = o->region_observer;
	run_failure_init(o->root, o->session_dir);
	output_echo_init(o->stdout_file, o->stderr_file);
	jit_set_access_hook(grant_access);
	jit_enable_icount();
	region_threads_setup();
	jit_register_client(&client);
}

#include "recorder.h"

#include <errno.h>
#include <linux/sched.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/uio.h>

#include "first_touch.h"
#include "instrument.h"
#include "jit_app.h"
#include "jit_messages.h"
#include "nondet.h"
#include "output_echo.h"
#include "record_queue.h"
#include "rt_alloc.h"
#include "rt_format.h"
#include "rt_string.h"
#include "syscall_model.h"

enum region_state { OUT, TO_IN, IN, TO_OUT };

enum { PAGE = 4096 };

static struct {
	const char *basename;
	bool fat;
	enum region_state state;
	bool disabled;		    /* a forked child: it does not write its parent's pinballs */
	uint32_t region;	    /* index of the current or next region */
	uint64_t start_icount;	    /* the thread's icount when the region began */
	struct pinball_cause cause; /* what asked for the pending transition */
	char cause_text[256];
	char path[4096];
	bool unmodelled_seen[512];
} rec;

static struct record *must_new(enum record_kind kind, size_t extra)
{
	struct record *r = record_new(kind, extra);
	if (!r)
		jit_fatal("out of memory while recording");
	return r;
}

/* ---- region start ---- */

static void record_thread(enum record_kind kind, struct jit_thread *t, uint64_t icount)
{
	size_t xlen;
	const uint8_t *xsave = jit_thread_xsave(t, &xlen);
	struct record *r = must_new(kind, xlen);
	struct jit_regs regs;
	jit_thread_get_regs(t, &regs);
	memcpy(r->data, xsave, xlen);
	r->u.thread = (struct pinball_thread){
	    .tid = jit_thread_id(t), .icount = icount, .signal_mask = jit_thread_sigmask(t)};
	memcpy(r->u.thread.regs.gpr, regs.gpr, sizeof regs.gpr);
	r->u.thread.regs.rip = regs.rip;
	r->u.thread.regs.rflags = regs.rflags;
	r->u.thread.regs.fs_base = regs.fs_base;
	r->u.thread.regs.gs_base = regs.gs_base;
	r->u.thread.regs.xsave = r->data;
	r->u.thread.regs.xsave_len = xlen;
	record_push(r);
}

static void record_map(uint64_t start, uint64_t end, uint32_t prot, uint32_t flags, uint64_t offset,
		       const char *path)
{
	size_t plen = path ? strlen(path) + 1 : 0;
	struct record *r = must_new(REC_MAP, plen);
	if (path)
		memcpy(r->data, path, plen);
	r->u.map = (struct pinball_map_entry){start, end,    prot,
					      flags, offset, path ? (const char *)r->data : NULL};
	record_push(r);
}

static int record_mapping(const struct jit_app_mapping *m, void *arg)
{
	(void)arg;
	record_map(m->start, m->end, m->prot, m->flags, m->offset, m->path);
	return 0;
}

/* Every readable page of a mapping, as it is now (-log:fat 1). */
static int snapshot_mapping(const struct jit_app_mapping *m, void *arg)
{
	(void)arg;
	if (!(m->prot & PROT_READ))
		return 0;
	for (uint64_t page = m->start; page < m->end; page += PAGE) {
		struct record *r = must_new(REC_PAGE, PAGE);
		/* Pages past the end of a mapped file cannot be read: skip them. */
		if (!jit_read_app_memory(r->data, page, PAGE)) {
			rt_free(r);
			continue;
		}
		r->u.page.addr = page;
		r->u.page.prot = m->prot;
		r->u.page.data = r->data;
		record_push(r);
	}
	return 0;
}

/* The actions other than the default and the alternate stack, into a REC_BEGIN record
 * with room for 64 actions. */
static void describe_signal_state(struct record *r, const struct jit_thread *t)
{
	struct pinball_sigaction *acts = (struct pinball_sigaction *)r->data;
	size_t n = 0;
	for (int sig = 1; sig <= 64; sig++) {
		struct jit_sigaction a;
		jit_app_sigaction(t, sig, &a);
		if (a.handler || a.flags || a.restorer || a.mask)
			acts[n++] =
			    (struct pinball_sigaction){sig, a.handler, a.flags, a.restorer, a.mask};
	}
	r->u.begin.nsigactions = n;
	r->u.begin.sigactions = acts;
	struct jit_sigstack ss;
	jit_app_sigstack(t, &ss);
	r->u.begin.sigstack = (struct pinball_sigstack){ss.sp, ss.flags, ss.size};
}

static void begin_region(struct jit_thread *t, uint64_t icount)
{
	rt_format(rec.path, sizeof rec.path, "%s.%u", rec.basename, rec.region);
	struct record *r = must_new(REC_BEGIN, 64 * sizeof(struct pinball_sigaction));
	r->u.begin.basename = rec.path;
	r->u.begin.cause = rec.cause;
	describe_signal_state(r, t);
	record_push(r);
	record_thread(REC_THREAD, t, 0);
	uint64_t brk_start, brk_cur, brk_mapped;
	jit_app_brk_state(&brk_start, &brk_cur, &brk_mapped);
	/* The emulated break: a pseudo-mapping the replayer turns back into break state. */
	record_map(brk_start, brk_cur, 0, 0, brk_mapped - brk_start, "[brk]");
	jit_app_map_foreach(record_mapping, NULL);
	if (rec.fat)
		jit_app_map_foreach(snapshot_mapping, NULL);
	else
		first_touch_begin();
	rec.start_icount = icount;
	rec.state = IN;
}

/* ---- region end ---- */

static void end_region(struct jit_thread *t, uint64_t icount)
{
	if (!rec.fat)
		first_touch_end();
	uint64_t executed = icount - rec.start_icount;
	record_thread(REC_END, t, executed);
	struct record *r = must_new(REC_SLICE, 0);
	r->u.slice = (struct pinball_slice){jit_thread_id(t), executed};
	record_push(r);
	r = must_new(REC_FINISH, 0);
	r->u.finish = rec.cause;
	record_push(r);
	const char *err = record_queue_wait_done();
	if (err[0])
		jit_fatal("%s", err);
	rec.state = OUT;
	rec.region++;
}

/* ---- events ---- */

static void set_cause(const struct control_event_info *ev)
{
	rt_strlcpy(rec.cause_text, ev->alarm ? ev->alarm->text : "default-start",
		   sizeof rec.cause_text);
	rec.cause = (struct pinball_cause){
	    .kind = "control", .spec = rec.cause_text, .tid = ev->tid, .icount = ev->icount};
}

void recorder_event(const struct control_event_info *ev)
{
	bool start = ev->event == CONTROL_EVENT_START;
	bool wanted = (start && rec.state == OUT) || (!start && rec.state == IN);
	if (rec.disabled || ev->event == CONTROL_EVENT_THREADID || !wanted) {
		control_engine_log_ignored(ev);
		return;
	}
	if (start && jit_thread_count() > 1)
		jit_fatal(
		    "a region starts in a program with several threads: recording multithreaded "
		    "programs is not supported yet");
	set_cause(ev);
	rec.state = start ? TO_IN : TO_OUT;
	/* Step 1 of the transition: the triggering thread stops at the end of its block
	 * (the others would stop at theirs: one thread for now). */
	jit_request_safe_point(ev->thread);
}

/* Steps 2 to 4: this thread is at the end of its block; every other one stops at the end
 * of its own; the mode flips; all resume (when this one returns to the app) with the
 * instrumentation of the new mode. */
static void safe_point(struct jit_thread *t, uint64_t icount, void *arg)
{
	(void)arg;
	jit_stop_the_world(t);
	if (rec.state == TO_IN)
		begin_region(t, icount);
	else if (rec.state == TO_OUT)
		end_region(t, icount);
	jit_request_retranslation();
}

/* ---- what a region records ---- */

/* Copies what can be read of [addr, addr+len) as writes: a range may run into pages that
 * cannot be read (a file mapping past the file's end); those are left out. Returns the new
 * number of writes. w has room for one write per readable run. */
static size_t copy_readable(struct pinball_mem_write *w, size_t kept, uint8_t **bytes,
			    uint64_t addr, uint64_t len)
{
	if (jit_read_app_memory(*bytes, addr, len)) {
		w[kept++] = (struct pinball_mem_write){addr, *bytes, len};
		*bytes += len;
		return kept;
	}
	uint64_t end = addr + len;
	while (addr < end) {
		uint64_t chunk = PAGE - (addr & (PAGE - 1));
		if (chunk > end - addr)
			chunk = end - addr;
		if (jit_read_app_memory(*bytes, addr, chunk)) {
			/* extend the previous write when contiguous */
			if (kept && w[kept - 1].addr + w[kept - 1].len == addr)
				w[kept - 1].len += chunk;
			else
				w[kept++] = (struct pinball_mem_write){addr, *bytes, chunk};
			*bytes += chunk;
		}
		addr += chunk;
	}
	return kept;
}

/* What of a call reached the logger's stdout or stderr. */
struct echo {
	uint32_t stream;      /* 1, 2; 0: nothing */
	const uint8_t *bytes; /* moved inside the kernel (NULL: they are in app memory) */
	size_t len;
};

static void record_syscall_echo(struct jit_thread *t, long nr, const long args[6], long result,
				const struct echo *echo)
{
	struct mem_range writes[SYSCALL_MAX_RANGES];
	int n = syscall_writes(nr, args, result, writes);
	if (n < 0 && nr >= 0 && nr < 512 && !rec.unmodelled_seen[nr]) {
		rec.unmodelled_seen[nr] = true;
		const char *name = syscall_name(nr);
		jit_message(
		    "warning: syscall %s (%ld) is not modelled for these arguments: what it "
		    "writes to memory is not recorded (the replayer will say so)",
		    name ? name : "?", nr);
	}
	size_t data = echo->len;
	for (int i = 0; i < n; i++)
		data += writes[i].len;
	/* Room for every range split into readable runs (at worst one per other page). */
	size_t slots = (size_t)(n > 0 ? n : 0) + data / PAGE + 1;
	struct record *r = must_new(REC_EVENT, slots * sizeof(struct pinball_mem_write) + data);
	struct pinball_mem_write *w = (struct pinball_mem_write *)r->data;
	uint8_t *bytes = r->data + slots * sizeof *w;
	size_t kept = 0;
	for (int i = 0; i < n; i++)
		kept = copy_readable(w, kept, &bytes, writes[i].addr, writes[i].len);
	r->u.event.tid = jit_thread_id(t);
	r->u.event.ev = (struct pinball_event){
	    .icount = jit_thread_icount(t) - rec.start_icount,
	    .kind = PINBALL_EV_SYSCALL,
	};
	r->u.event.ev.syscall.nr = (uint64_t)nr;
	for (int i = 0; i < 6; i++)
		r->u.event.ev.syscall.args[i] = (uint64_t)args[i];
	r->u.event.ev.syscall.result = result;
	r->u.event.ev.syscall.nwrites = kept;
	r->u.event.ev.syscall.writes = w;
	r->u.event.ev.syscall.echo = echo->stream;
	if (echo->len) {
		memcpy(bytes, echo->bytes, echo->len);
		r->u.event.ev.syscall.output = bytes;
		r->u.event.ev.syscall.output_len = echo->len;
	}
	record_push(r);
}

/* A call as the kernel made it; what it wrote from app memory to the logger's stdout or
 * stderr is marked for the replay's echo. */
static void record_syscall(struct jit_thread *t, long nr, const long args[6], long result)
{
	int fd_arg;
	struct echo echo = {0};
	enum syscall_output output = syscall_output(nr, &fd_arg);
	if (result > 0 && output != SYSCALL_OUTPUT_NONE)
		echo.stream = output_echo_stream((int)args[fd_arg]);
	if (echo.stream && output == SYSCALL_OUTPUT_KERNEL) {
		/* a copy the recorder could not make itself (tee) */
		if (!rec.unmodelled_seen[nr])
			jit_message("warning: syscall %s to the logger's %s is not echoed by "
				    "replays",
				    syscall_name(nr), echo.stream == 1 ? "stdout" : "stderr");
		rec.unmodelled_seen[nr] = true;
		echo.stream = 0;
	}
	record_syscall_echo(t, nr, args, result, &echo);
}

/* A copy inside the kernel to the logger's stdout or stderr: the recorder makes it itself,
 * as a read and a write, to keep the bytes for the replay's echo. False when the call is
 * not such a copy. */
static bool record_echoed_copy(struct jit_thread *t, long nr, const long args[6])
{
	enum { CHUNK = 256 * 1024 };
	int fd_arg;
	if (syscall_output(nr, &fd_arg) != SYSCALL_OUTPUT_KERNEL)
		return false;
	uint32_t stream = output_echo_stream((int)args[fd_arg]);
	if (!stream)
		return false;
	uint8_t *buf = rt_alloc(CHUNK);
	if (!buf)
		jit_fatal("out of memory while recording");
	long result;
	bool done = output_echo_copy(nr, args, buf, CHUNK, &result);
	if (done) {
		struct echo echo = {stream, buf, result > 0 ? (size_t)result : 0};
		record_syscall_echo(t, nr, args, result, &echo);
		jit_thread_set_gpr(t, JIT_GPR_RAX, (uint64_t)result);
	}
	rt_free(buf);
	return done;
}

/* Before the kernel sees the app's memory, the pages it will use must be accessible: the
 * buffers the model knows, and (for pointers without a known size, such as paths) the page
 * of every argument that points into withheld memory and the next page. */
static void prepare_memory(long nr, const long a[6])
{
	switch (nr) {
	case SYS_mprotect: /* the app's new protection replaces ours: record first */
	case SYS_mremap:
		first_touch_range((uint64_t)a[0], (uint64_t)a[1]);
		break;
	case SYS_munmap:
		first_touch_forget((uint64_t)a[0], (uint64_t)a[1]);
		break;
	case SYS_mmap:
		if (a[3] & MAP_FIXED)
			first_touch_forget((uint64_t)a[0], (uint64_t)a[1]);
		break;
	default:
		break;
	}
	struct mem_range ranges[SYSCALL_MAX_RANGES];
	int n = syscall_accesses(nr, a, ranges);
	for (int i = 0; i < n; i++)
		first_touch_range(ranges[i].addr, ranges[i].len);
	for (int i = 0; i < 6; i++)
		first_touch_range((uint64_t)a[i], 2 * PAGE - ((uint64_t)a[i] & (PAGE - 1)));
}

/* Pages stay withheld until the region's end takes effect: the triggering thread finishes
 * its block after a stop event (TO_OUT), and that block belongs to the region. */
static bool grant_access(uint64_t addr)
{
	return (rec.state == IN || rec.state == TO_OUT) && !rec.fat && !rec.disabled &&
	       first_touch_page(addr);
}

/* A call whose effects cannot be recorded fails in the region as it would on a kernel
 * without the feature; the replay injects the same failure. */
static void refuse(struct jit_thread *t, long nr, const long args[6])
{
	if (nr >= 0 && nr < 512 && !rec.unmodelled_seen[nr]) {
		rec.unmodelled_seen[nr] = true;
		jit_message("warning: syscall %s fails with ENOSYS inside a recorded region: its "
			    "effects cannot be recorded",
			    syscall_name(nr));
	}
	record_syscall(t, nr, args, -ENOSYS);
	jit_thread_set_gpr(t, JIT_GPR_RAX, (uint64_t)-ENOSYS);
}

static bool syscall_pre(struct jit_thread *t, long nr, const long args[6], void *arg)
{
	(void)arg;
	if (rec.state != IN || rec.disabled)
		return false;
	if (nr == SYS_clone && (args[0] & CLONE_THREAD))
		jit_fatal("the app creates a thread inside a recorded region: recording "
			  "multithreaded programs is not supported yet");
	enum syscall_replay kind = syscall_replay_kind(nr, args);
	if (kind == SYSCALL_REPLAY_REFUSED) {
		refuse(t, nr, args);
		return true;
	}
	if (!rec.fat)
		prepare_memory(nr, args);
	if (record_echoed_copy(t, nr, args))
		return true;
	if (kind == SYSCALL_REPLAY_EXIT) {
		/* The region ends with the process: the exit is its last event. */
		record_syscall(t, nr, args, 0);
		jit_thread_set_gpr(t, JIT_GPR_RAX, (uint64_t)nr);
		rec.cause = (struct pinball_cause){.kind = "exit",
						   .spec = "exit_group",
						   .tid = jit_thread_id(t),
						   .icount = jit_thread_icount(t)};
		end_region(t, jit_thread_icount(t));
	}
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
	if (rec.state != IN || rec.fat || rec.disabled || !first_touch_all())
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

static void syscall_post(struct jit_thread *t, long nr, const long args[6], long result, void *arg)
{
	(void)arg;
	if (rec.disabled)
		return;
	if (is_fork(nr, args) && result == 0) {
		/* The child has no writer thread: it is not recorded, and the pages withheld
		 * for first-touch recording are its own again. */
		rec.disabled = true;
		if ((rec.state == IN || rec.state == TO_OUT) && !rec.fat)
			first_touch_end();
		return;
	}
	if (rec.state == IN)
		record_syscall(t, nr, args, result);
}

/* An asynchronous signal delivered in the region: the replayer must deliver it at the same
 * instruction count, with the same siginfo, action and saved mask. */
static void signal_delivery(struct jit_thread *t, int sig, const void *info,
			    const struct jit_sigaction *act, uint64_t old_mask, void *arg)
{
	(void)arg;
	if (rec.state != IN || rec.disabled)
		return;
	enum { INFO = 128 };
	struct record *r = must_new(REC_EVENT, INFO + sizeof *act + sizeof old_mask);
	memcpy(r->data, info, INFO);
	memcpy(r->data + INFO, act, sizeof *act);
	memcpy(r->data + INFO + sizeof *act, &old_mask, sizeof old_mask);
	r->u.event.tid = jit_thread_id(t);
	r->u.event.ev = (struct pinball_event){
	    .icount = jit_thread_icount(t) - rec.start_icount,
	    .kind = PINBALL_EV_SIGNAL,
	};
	r->u.event.ev.signal.signo = sig;
	r->u.event.ev.signal.siginfo = r->data;
	r->u.event.ev.signal.siginfo_len = INFO + sizeof *act + sizeof old_mask;
	record_push(r);
}

static void nondet_callout(const struct jit_callout *c)
{
	struct nondet_result v;
	nondet_execute(c->thread, (uintptr_t)c->arg, &v);
	struct record *r = must_new(REC_EVENT, 0);
	r->u.event.tid = jit_thread_id(c->thread);
	r->u.event.ev = (struct pinball_event){
	    .icount = jit_callout_icount(c) - rec.start_icount,
	    .kind = PINBALL_EV_INSN,
	};
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
 * its result for the replayer. */
static void instrument(struct jit_block *b, void *arg)
{
	(void)arg;
	if (rec.state == IN && !rec.disabled)
		nondet_instrument_block(b, nondet_callout);
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
    .syscall_pre = syscall_pre,
    .syscall_efault = syscall_efault,
    .syscall_post = syscall_post,
    .safe_point = safe_point,
    .signal_delivery = signal_delivery,
};

/* A fatal error in a region: nothing that looks like a pinball may stay behind. */
static void abandon_region(void)
{
	if (rec.state != IN && rec.state != TO_OUT)
		return;
	struct record *r = record_new(REC_ABORT, 0);
	if (!r)
		return;
	record_push(r);
	record_queue_wait_done();
}

void recorder_start(const struct recorder_options *o)
{
	jit_on_fatal(abandon_region);
	rec.basename = o->basename;
	rec.fat = o->fat;
	output_echo_init(o->stdout_file, o->stderr_file);
	jit_set_access_hook(grant_access);
	jit_enable_icount();
	jit_register_client(&client);
}

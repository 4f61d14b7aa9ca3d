#include "seccomp.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/audit.h>
#include <linux/capability.h>
#include <linux/memfd.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>

#include "app_copy.h"
#include "jit_messages.h"
#include "rt_alloc.h"
#include "rt_syscall.h"
#include "seccomp_bpf.h"
#include "threads.h"

/* One installed filter; a thread holds the newest of its chain. Immutable once made, shared
 * by the threads that hold it and the newer filters made on top of it. */
struct seccomp_filter {
	struct seccomp_filter *prev;
	uint32_t refs;
	uint32_t len;
	uint32_t path_insns; /* what the kernel counts against MAX_INSNS_PER_PATH */
	struct sock_filter prog[];
};

/* The kernel's limit on a chain: its programs' lengths, plus 4 for each older filter. */
enum { MAX_INSNS_PER_PATH = 32768 };

/* What strict mode lets a thread call (x86-64, and i386 for int $0x80). */
static bool strict_allows(uint32_t arch, long nr)
{
	if (arch == AUDIT_ARCH_I386)
		return nr == 3 || nr == 4 || nr == 1 || nr == 119; /* read write exit sigreturn */
	return nr == SYS_read || nr == SYS_write || nr == SYS_exit || nr == SYS_rt_sigreturn;
}

static void hold(struct seccomp_filter *f)
{
	if (f)
		f->refs++;
}

static void drop(struct seccomp_filter *f)
{
	while (f && --f->refs == 0) {
		struct seccomp_filter *prev = f->prev;
		rt_free(f);
		f = prev;
	}
}

/* A filter on top of prev (which it holds), from a program already checked. */
static struct seccomp_filter *filter_new(struct seccomp_filter *prev,
					 const struct sock_filter *prog, uint32_t len)
{
	struct seccomp_filter *f = rt_alloc(sizeof *f + len * sizeof *prog);
	if (!f)
		return NULL;
	memcpy(f->prog, prog, len * sizeof *prog);
	f->len = len;
	f->refs = 1;
	f->prev = prev;
	hold(prev);
	f->path_insns = len + (prev ? prev->path_insns + 4 : 0);
	return f;
}

/* Only the kernel's own checks for a new filter: no_new_privs, or CAP_SYS_ADMIN. */
static bool may_install_filters(void)
{
	if (rt_syscall2(SYS_prctl, PR_GET_NO_NEW_PRIVS, 0) == 1)
		return true;
	struct __user_cap_header_struct head = {_LINUX_CAPABILITY_VERSION_3, 0};
	struct __user_cap_data_struct data[2];
	if (rt_syscall2(SYS_capget, (long)&head, (long)data) < 0)
		return false;
	return data[CAP_TO_INDEX(CAP_SYS_ADMIN)].effective & CAP_TO_MASK(CAP_SYS_ADMIN);
}

/* Whether `older` is part of `newer`'s chain (no filter at all is part of every chain). */
static bool is_ancestor(const struct seccomp_filter *older, const struct seccomp_filter *newer)
{
	if (!older)
		return true;
	for (; newer; newer = newer->prev)
		if (newer == older)
			return true;
	return false;
}

/* TSYNC: every other live thread must have no filters, or filters the caller's chain holds;
 * 0, or the kernel's answer for the first one that does not (its tid, or -ESRCH). */
static long sync_obstacle(const struct jit_thread *t, bool esrch)
{
	for (size_t i = 0; i < threads_count(); i++) {
		const struct jit_thread *o = threads_at(i);
		if (o == t || o->exited)
			continue;
		if (!o->seccomp_strict && is_ancestor(o->seccomp, t->seccomp))
			continue;
		return esrch ? -ESRCH : o->os_tid;
	}
	return 0;
}

static void sync_threads(const struct jit_thread *t)
{
	for (size_t i = 0; i < threads_count(); i++) {
		struct jit_thread *o = threads_at(i);
		if (o == t || o->exited)
			continue;
		hold(t->seccomp);
		drop(o->seccomp);
		o->seccomp = t->seccomp;
	}
}

/* seccomp(SECCOMP_SET_MODE_FILTER, flags, fprog), in the kernel's order of checks. */
static long set_mode_filter(struct jit_thread *t, unsigned long flags, uint64_t args)
{
	const unsigned long known =
	    SECCOMP_FILTER_FLAG_TSYNC | SECCOMP_FILTER_FLAG_LOG | SECCOMP_FILTER_FLAG_SPEC_ALLOW |
	    SECCOMP_FILTER_FLAG_NEW_LISTENER | SECCOMP_FILTER_FLAG_TSYNC_ESRCH |
	    SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV;
	if (flags & ~known)
		return -EINVAL;
	if ((flags & SECCOMP_FILTER_FLAG_TSYNC) && (flags & SECCOMP_FILTER_FLAG_NEW_LISTENER) &&
	    !(flags & SECCOMP_FILTER_FLAG_TSYNC_ESRCH))
		return -EINVAL;
	if ((flags & SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV) &&
	    !(flags & SECCOMP_FILTER_FLAG_NEW_LISTENER))
		return -EINVAL;
	struct sock_fprog fprog;
	if (!app_copy_in(&fprog, args, sizeof fprog))
		return -EFAULT;
	if (fprog.len == 0 || fprog.len > BPF_MAXINSNS)
		return -EINVAL;
	if (!may_install_filters())
		return -EACCES;
	struct sock_filter *prog = rt_alloc(fprog.len * sizeof *prog);
	if (!prog)
		return -ENOMEM;
	long r = 0;
	if (!app_copy_in(prog, (uint64_t)fprog.filter, fprog.len * sizeof *prog))
		r = -EFAULT;
	else if (!seccomp_bpf_valid(prog, fprog.len))
		r = -EINVAL;
	else if (flags & SECCOMP_FILTER_FLAG_NEW_LISTENER) {
		/* A listener's descriptor would get the notifications of syscalls the runtime
		 * decides on: not offered, as by a kernel without it. */
		jit_message("warning: seccomp user notification (SECCOMP_FILTER_FLAG_NEW_LISTENER) "
			    "is not supported: the filter is refused (EINVAL)");
		r = -EINVAL;
	} else if (t->seccomp_strict)
		r = -EINVAL;
	else if (fprog.len + (t->seccomp ? t->seccomp->path_insns + 4 : 0) > MAX_INSNS_PER_PATH)
		r = -ENOMEM;
	else if (flags & SECCOMP_FILTER_FLAG_TSYNC)
		r = sync_obstacle(t, flags & SECCOMP_FILTER_FLAG_TSYNC_ESRCH);
	struct seccomp_filter *f = r == 0 ? filter_new(t->seccomp, prog, fprog.len) : NULL;
	rt_free(prog);
	if (r == 0 && !f)
		r = -ENOMEM;
	if (r != 0)
		return r;
	drop(t->seccomp);
	t->seccomp = f;
	if (flags & SECCOMP_FILTER_FLAG_TSYNC)
		sync_threads(t);
	return 0;
}

long seccomp_set_mode(struct jit_thread *t, unsigned long op, unsigned long flags, uint64_t args)
{
	if (op == SECCOMP_SET_MODE_FILTER)
		return set_mode_filter(t, flags, args);
	if (flags || args || t->seccomp)
		return -EINVAL;
	t->seccomp_strict = true;
	return 0;
}

long seccomp_mode(const struct jit_thread *t)
{
	return t->seccomp_strict ? SECCOMP_MODE_STRICT : t->seccomp ? SECCOMP_MODE_FILTER : 0;
}

/* The filters' answer: every filter runs, newest first; the most restrictive action wins
 * (the earliest-run one among equals), actions ordered as signed numbers as the kernel
 * does, which puts KILL_PROCESS first. */
static uint32_t run_filters(const struct seccomp_filter *f, const struct seccomp_data *d)
{
	uint32_t ret = SECCOMP_RET_ALLOW;
	for (; f; f = f->prev) {
		uint32_t cur = seccomp_bpf_run(f->prog, f->len, d);
		if ((int32_t)(cur & SECCOMP_RET_ACTION_FULL) <
		    (int32_t)(ret & SECCOMP_RET_ACTION_FULL))
			ret = cur;
	}
	return ret;
}

long seccomp_filter_count(const struct jit_thread *t)
{
	long n = 0;
	for (const struct seccomp_filter *f = t->seccomp; f; f = f->prev)
		n++;
	return n;
}

struct seccomp_verdict seccomp_judge(const struct jit_thread *t, uint32_t arch, uint64_t rax,
				     const uint64_t args[6], uint64_t ip)
{
	struct seccomp_verdict v = {.outcome = SECCOMP_RUNS};
	if (t->seccomp_strict) {
		if (!strict_allows(arch, (long)rax)) {
			v.outcome = SECCOMP_KILLS_THREAD;
			v.sig = SIGKILL;
		}
		return v;
	}
	if (!t->seccomp)
		return v;
	struct seccomp_data d = {.nr = (int)rax, .arch = arch, .instruction_pointer = ip};
	memcpy(d.args, args, sizeof d.args);
	uint32_t ret = run_filters(t->seccomp, &d);
	uint32_t data = ret & SECCOMP_RET_DATA;
	switch (ret & SECCOMP_RET_ACTION_FULL) {
	case SECCOMP_RET_ALLOW:
	case SECCOMP_RET_LOG:
		return v;
	case SECCOMP_RET_ERRNO:
		v.outcome = SECCOMP_FAILS;
		v.result = -(long)(data > 4095 ? 4095 : data);
		return v;
	case SECCOMP_RET_TRACE:	     /* no tracer sees the runtime's threads */
	case SECCOMP_RET_USER_NOTIF: /* no listener: see set_mode_filter */
		v.outcome = SECCOMP_FAILS;
		v.result = -ENOSYS;
		return v;
	case SECCOMP_RET_TRAP:
		v.outcome = SECCOMP_TRAPS;
		v.result = (long)rax; /* the kernel rolls the syscall back */
		v.info.si_signo = SIGSYS;
		v.info.si_code = 1; /* SYS_SECCOMP */
		v.info.si_errno = (int)data;
		v.info.si_call_addr = (void *)ip;
		v.info.si_syscall = d.nr;
		v.info.si_arch = arch;
		return v;
	case SECCOMP_RET_KILL_THREAD:
		v.outcome = SECCOMP_KILLS_THREAD;
		v.sig = SIGSYS;
		return v;
	default: /* SECCOMP_RET_KILL_PROCESS, and any action the kernel does not know */
		v.outcome = SECCOMP_KILLS_PROCESS;
		v.sig = SIGSYS;
		return v;
	}
}

void seccomp_inherit(struct jit_thread *child, const struct jit_thread *parent)
{
	hold(parent->seccomp);
	child->seccomp = parent->seccomp;
	child->seccomp_strict = parent->seccomp_strict;
}

void seccomp_release_thread(struct jit_thread *t)
{
	drop(t->seccomp);
	t->seccomp = NULL;
}

/* The filters of t's chain, oldest first, to hand over: "SCMP", their count, then each one's
 * length and program. */
static const char HANDOFF_MAGIC[4] = {'S', 'C', 'M', 'P'};

static bool write_chain(int fd, const struct seccomp_filter *f)
{
	if (f->prev && !write_chain(fd, f->prev))
		return false;
	return rt_write_all(fd, &f->len, sizeof f->len) == (long)sizeof f->len &&
	       rt_write_all(fd, f->prog, f->len * sizeof *f->prog) ==
		   (long)(f->len * sizeof *f->prog);
}

int seccomp_exec_handoff(const struct jit_thread *t)
{
	if (!t->seccomp)
		return 0;
	long fd = rt_syscall2(SYS_memfd_create, (long)"seccomp filters", 0);
	if (fd < 0)
		return (int)fd;
	uint32_t count = (uint32_t)seccomp_filter_count(t);
	if (rt_write_all((int)fd, HANDOFF_MAGIC, sizeof HANDOFF_MAGIC) != sizeof HANDOFF_MAGIC ||
	    rt_write_all((int)fd, &count, sizeof count) != sizeof count ||
	    !write_chain((int)fd, t->seccomp)) {
		rt_close((int)fd);
		return -ENOMEM;
	}
	if (fd < 3) { /* 0 says "none" to the next image */
		long moved = rt_syscall3(SYS_fcntl, fd, F_DUPFD, 3);
		rt_close((int)fd);
		fd = moved;
	}
	/* Not one of the runtime's descriptors (jit_runtime_fd): a vfork child's exec would
	 * leave it marked as such in the memory it shares with its parent. */
	return (int)fd;
}

void seccomp_exec_failed(int fd)
{
	if (fd > 0)
		rt_close(fd);
}

static bool read_exact(int fd, void *buf, size_t len)
{
	for (size_t done = 0; done < len;) {
		long n = rt_read(fd, (char *)buf + done, len - done);
		if (n <= 0)
			return false;
		done += (size_t)n;
	}
	return true;
}

static bool read_chain(struct jit_thread *t, int fd, const char **why)
{
	char magic[sizeof HANDOFF_MAGIC];
	uint32_t count;
	if (rt_syscall3(SYS_lseek, fd, 0, SEEK_SET) != 0 || !read_exact(fd, magic, sizeof magic) ||
	    memcmp(magic, HANDOFF_MAGIC, sizeof magic) || !read_exact(fd, &count, sizeof count)) {
		*why = "not a handover of seccomp filters";
		return false;
	}
	struct sock_filter *prog = rt_alloc(BPF_MAXINSNS * sizeof *prog);
	if (!prog) {
		*why = "out of memory";
		return false;
	}
	*why = NULL;
	for (uint32_t i = 0; i < count && !*why; i++) {
		uint32_t len;
		struct seccomp_filter *f = NULL;
		if (!read_exact(fd, &len, sizeof len) || !len || len > BPF_MAXINSNS ||
		    !read_exact(fd, prog, len * sizeof *prog) || !seccomp_bpf_valid(prog, len))
			*why = "a filter is damaged";
		else if (!(f = filter_new(t->seccomp, prog, len)))
			*why = "out of memory";
		else {
			drop(t->seccomp);
			t->seccomp = f;
		}
	}
	rt_free(prog);
	return !*why;
}

bool seccomp_adopt(struct jit_thread *t, int fd, const char **why)
{
	bool ok = read_chain(t, fd, why);
	rt_close(fd);
	return ok;
}

static void give_chain(const struct seccomp_filter *f)
{
	if (!f)
		return;
	give_chain(f->prev);
	struct sock_fprog fprog = {(unsigned short)f->len, (struct sock_filter *)f->prog};
	long r = rt_syscall3(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, (long)&fprog);
	if (r < 0)
		jit_message("warning: the app's seccomp filter could not be given to the kernel "
			    "for its native exec (error %ld)",
			    -r);
}

struct seccomp_filter *seccomp_hold_for_exec(const struct jit_thread *t)
{
	hold(t->seccomp);
	return t->seccomp;
}

void seccomp_give_to_kernel(const struct seccomp_filter *chain)
{
	give_chain(chain);
}

void seccomp_let_go(struct seccomp_filter *chain)
{
	drop(chain);
}

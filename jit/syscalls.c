#include "syscalls.h"

#include <asm/prctl.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/audit.h>
#include <linux/sched.h>
#include <linux/seccomp.h>
#include <signal.h>
#include <string.h>
#include <sys/personality.h>
#include <sys/prctl.h>

#include "app_copy.h"
#include "app_memory.h"
#include "block.h"
#include "code_cache.h"
#include "code_pages.h"
#include "config.h"
#include "cpuid_table.h"
#include "dispatcher.h"
#include "exec_env.h"
#include "forked_code.h"
#include "fragment.h"
#include "helper_tids.h"
#include "messages.h"
#include "park.h"
#include "perf_map.h"
#include "persist.h"
#include "proc_fds.h"
#include "proc_self.h"
#include "rt_alloc.h"
#include "rt_format.h"
#include "rt_string.h"
#include "rt_syscall.h"
#include "runtime_fds.h"
#include "runtime_lock.h"
#include "seccomp.h"
#include "signals.h"
#include "table_jump.h"
#include "threads.h"
#include "translate.h"
#include "world.h"

static void print_stats(void)
{
	uint64_t hits = 0;
	for (size_t i = 0; i < threads_count(); i++)
		hits += threads_at(i)->ibl_hits;
	jit_message(
	    "jit stats: fragments %lu, instructions decoded %lu, cache bytes %lu, links "
	    "%lu, indirect hits %lu, indirect misses %lu, flushes %lu, partial flushes %lu, "
	    "world stops %lu, threads %lu",
	    translate_stats.blocks, translate_stats.insns_decoded,
	    (unsigned long)code_cache_bytes_used(), translate_stats.links, hits,
	    dispatch_stats.indirect_misses, translate_stats.flushes,
	    translate_stats.partial_flushes, world_stops(), (unsigned long)threads_count());
	if (cpuid_table_answered() || cpuid_table_asked())
		jit_message(
		    "jit stats: cpuid answered from the run's table %lu, asked of the CPU %lu",
		    cpuid_table_answered(), cpuid_table_asked());
	if (translate_stats.flags_dead_ahead)
		jit_message("jit stats: branches found to go where the flags are written first %lu",
			    translate_stats.flags_dead_ahead);
	if (persist_wanted())
		jit_message("jit stats: kept fragments used %lu", persist_fragments_found());
	if (table_jump_tables())
		jit_message(
		    "jit stats: jumps through constant tables: %u tables, %lu entries filled",
		    table_jump_tables(), (unsigned long)table_jump_fills());
	if (forked_code_translated_ahead())
		jit_message("jit stats: blocks translated ahead for forked children %lu",
			    (unsigned long)forked_code_translated_ahead());
}

static int exit_status_instead = -1;

void jit_set_exit_status(int status)
{
	exit_status_instead = status;
}

void jit_process_exit(int status)
{
	instrument_at_exit(status);
	if (exit_status_instead >= 0)
		status = exit_status_instead;
	persist_save();
	cpuid_table_save(true);
	forked_code_report();
	persist_end();
	if (jit_config.stats)
		print_stats();
	rt_exit_group(status);
	__builtin_unreachable();
}

/* The end of the user address space the kernel allows for an %fs base (TASK_SIZE_MAX). */
#define USER_ADDRESS_END 0x7ffffffff000ull

static long arch_prctl(struct jit_thread *t, long code, long addr)
{
	switch (code) {
	case ARCH_SET_FS:
		if ((uint64_t)addr >= USER_ADDRESS_END)
			return -EPERM; /* as the kernel refuses it (wrfsbase would fault) */
		t->app_fs = (uint64_t)addr;
		return 0;
	case ARCH_GET_FS:
		return app_copy_out((uint64_t)addr, &t->app_fs, sizeof t->app_fs) ? 0 : -EFAULT;
	case ARCH_SET_GS:
		jit_fatal(
		    "the app sets its %%gs base (arch_prctl ARCH_SET_GS); the runtime owns %%gs "
		    "and does not support this");
	case ARCH_GET_GS: {
		uint64_t zero = 0;
		return app_copy_out((uint64_t)addr, &zero, sizeof zero) ? 0 : -EFAULT;
	}
	default:
		return rt_syscall2(SYS_arch_prctl, code, addr);
	}
}

/* The parent's state for a new thread or vfork child: rax 0, the stack and TLS it asked
 * for, starting after the syscall. */
static void child_state(struct jit_thread *c, struct jit_thread *t, unsigned long flags, long stack,
			long tls)
{
	memcpy(c->gpr, t->gpr, sizeof c->gpr);
	c->gpr[JIT_GPR_RAX] = 0;
	c->gpr[JIT_GPR_RCX] = t->app_pc; /* what the syscall instruction leaves */
	c->gpr[JIT_GPR_R11] = t->rflags;
	if (stack)
		c->gpr[JIT_GPR_RSP] = (uint64_t)stack;
	c->rflags = t->rflags;
	c->app_fs = (flags & CLONE_SETTLS) ? (uint64_t)tls : t->app_fs;
	memcpy(c->xsave_area, t->xsave_area, sizeof c->xsave_area);
	c->app_pc = t->app_pc;
	c->parent = t;
	seccomp_inherit(c, t);
	/* Read now: once the clone returns, the parent may change its mask (pthread_create
	 * blocks every signal around the clone and then unblocks them) before the child runs. */
	c->start_mask = jit_thread_sigmask(t);
}

/* The child side of clone_thread, on the child's runtime stack. */
_Noreturn static void child_start(struct jit_thread *c);

/* clone(2) of c, a new app thread or vfork child, on its runtime stack. */
static long clone_thread(unsigned long flags, struct jit_thread *c, long parent_tid, long child_tid)
{
	return jit_clone_onto(flags, c, (int *)parent_tid, (int *)child_tid, c->rt_stack_top,
			      child_start);
}

/* Starts thread block c (its state set) as a new kernel thread of the app: clients see it
 * start, it enters the cache at c->app_pc. The kernel's result (the child's tid). */
static long start_thread(struct jit_thread *c, unsigned long flags, long parent_tid, long child_tid)
{
	instrument_thread_start(c, c->app_pc);
	c->jump_target = (uint64_t)dispatch_find_fragment(c->app_pc)->cache_pc;
	unsigned long real = flags & ~(unsigned long)CLONE_SETTLS;
	long r = clone_thread(real, c, parent_tid, child_tid);
	if (r < 0)
		threads_exiting(c);
	else
		c->os_tid = (int32_t)r; /* known here before the child sets it itself */
	return r;
}

/* A new app thread: its own thread block and runtime stack. */
static long app_clone_thread(struct jit_thread *t, unsigned long flags, long stack, long parent_tid,
			     long child_tid, long tls)
{
	if (t->vfork_child)
		jit_fatal("a vfork child creates a thread: not supported");
	struct jit_thread *c = thread_create();
	if (!c)
		return -ENOMEM;
	child_state(c, t, flags, stack, tls);
	return start_thread(c, flags, parent_tid, child_tid);
}

long jit_app_clone_thread(struct jit_thread *t, unsigned long flags, uint64_t stack, uint64_t tls)
{
	const unsigned long tid_writes =
	    CLONE_PARENT_SETTID | CLONE_CHILD_SETTID | CLONE_CHILD_CLEARTID | CLONE_PIDFD;
	return app_clone_thread(t, (flags & ~tid_writes) | CLONE_VM | CLONE_THREAD, (long)stack, 0,
				0, (long)tls);
}

struct jit_thread *jit_start_thread(struct jit_thread *self, const struct jit_regs *r,
				    const uint8_t *xsave, size_t xsave_len)
{
	bool locked = !runtime_lock_held();
	if (locked)
		runtime_lock();
	struct jit_thread *c = thread_create();
	if (c) {
		jit_thread_set_regs(c, r);
		jit_thread_set_xsave(c, xsave, xsave_len);
		c->parent = self;
		c->start_mask = jit_thread_sigmask(self);
		const unsigned long flags = CLONE_VM | CLONE_FS | CLONE_FILES | CLONE_SIGHAND |
					    CLONE_THREAD | CLONE_SYSVSEM;
		if (start_thread(c, flags, 0, 0) < 0)
			c = NULL;
	}
	if (locked)
		runtime_unlock();
	return c;
}

/* In a process just forked by self (under the runtime lock): self is its only running
 * thread, with a new kernel id, and still holds the lock; the waiting ones are frozen in a
 * debugger's copy (keep_waiting), gone in the app's. */
static void forked_child(struct jit_thread *self, bool keep_waiting)
{
	self->os_tid = (int32_t)rt_gettid();
	if (keep_waiting)
		park_freeze_waiting(self);
	threads_after_fork(self);
	helper_tids_forget();
	runtime_lock_adopt();
	perf_map_after_fork();
	persist_after_fork();
}

long jit_fork(struct jit_thread *self, unsigned long flags)
{
	long r = rt_syscall6(SYS_clone, (long)(flags & ~(unsigned long)(CLONE_VM | CLONE_THREAD)),
			     0, 0, 0, 0, 0);
	if (r == 0)
		forked_child(self, true);
	return r;
}

static void child_start(struct jit_thread *c)
{
	c->os_tid = (int32_t)rt_gettid();
	signals_init_thread(c);
	signals_inherit_mask(c);
	if (c->vfork_child) {
		/* Counted as in the runtime until now (see app_clone_vfork): enter the cache as
		 * jit_dispatch leaves it, where the code may have changed meanwhile. */
		runtime_lock();
		c->jump_target = (uint64_t)dispatch_find_fragment(c->app_pc)->cache_pc;
		__atomic_store_n(&c->in_runtime, 0, __ATOMIC_SEQ_CST);
		runtime_unlock();
	}
	jit_resume_cache();
}

/* clone(CLONE_VM|CLONE_VFORK), what vfork and glibc's posix_spawn do: the child runs as
 * natively, in our memory until it execs or exits, so that what it writes for us arrives
 * (posix_spawn's child writes its exec error in the parent's memory, then exits 127).
 * Like a thread it gets its own thread block and runtime stack and resumes in the cache
 * after the syscall with rax 0, on the stack it asked for; unlike a thread it is another
 * process: the real flags stay (the kernel gives it its own signal handlers, so it gets
 * its own copy of the app's actions too), it takes no thread number, and no client hook
 * runs on it (instrument.h). The kernel holds this thread in clone until the child execs
 * or exits: the runtime lock is free meanwhile for the child to run, and the child's block
 * goes when clone returns, when the child no longer touches our memory.
 * False when it cannot be done (clients, resources): the caller runs a copy instead. */
static bool app_clone_vfork(struct jit_thread *t, unsigned long flags, long stack, long parent_tid,
			    long child_tid, long tls, long *result)
{
	if (t->vfork_child || !instrument_vfork_shares_memory())
		return false;
	struct jit_thread *c = thread_create_vfork_child(t);
	if (!c)
		return false;
	if (!signals_own_copy(c, t)) {
		thread_release_vfork_child(c);
		return false;
	}
	child_state(c, t, flags, stack, tls);
	/* Stopped for world_stop until it enters the cache (child_start). */
	c->in_runtime = 1;
	unsigned long real = flags & ~(unsigned long)CLONE_SETTLS;
	runtime_unlock();
	*result = clone_thread(real, c, parent_tid, child_tid);
	/* The child is gone from our memory: a stop-the-world must not wait for it, and if it
	 * was killed inside the runtime, the lock it held is free again. */
	__atomic_store_n(&c->exited, 1, __ATOMIC_RELEASE);
	runtime_lock_forget(*result);
	runtime_lock();
	thread_release_vfork_child(c);
	return true;
}

/* clone(CLONE_VM) without CLONE_THREAD or CLONE_VFORK: another process in our memory (old
 * thread libraries, some spawn helpers), run as a vfork child is (its own block, the
 * clients' inline code but no hooks, its own copy of the app's signal actions unless it
 * shares them by CLONE_SIGHAND) except that its parent goes on: its block goes once its
 * process has ended (thread_create_vfork_child). Clients must agree as for a vfork child
 * (a recorder cannot have it write into a region's memory unrecorded); a copy instead, as
 * a vfork child gets then, would break what the app shares with it. */
static long app_clone_shared_memory(struct jit_thread *t, unsigned long flags, long stack,
				    long parent_tid, long child_tid, long tls)
{
	if (t->vfork_child)
		jit_fatal("a process sharing its parent's memory (clone CLONE_VM) creates another "
			  "one: not supported");
	if (!instrument_vfork_shares_memory())
		jit_fatal("clone with CLONE_VM and without CLONE_THREAD or CLONE_VFORK (a process "
			  "sharing this one's memory) cannot run under what watches this run (a "
			  "recorded region, controller alarms, -mix or -footprint): run it outside "
			  "the region, or with -log 0 and no such tool");
	struct jit_thread *c = thread_create_vfork_child(t);
	if (!c)
		return -EAGAIN;
	c->parent_goes_on = 1;
	if (!(flags & CLONE_SIGHAND) && !signals_own_copy(c, t)) {
		thread_release_vfork_child(c);
		return -ENOMEM;
	}
	child_state(c, t, flags, stack, tls);
	c->in_runtime = 1; /* stopped for world_stop until it enters the cache */
	long r = clone_thread(flags & ~(unsigned long)CLONE_SETTLS, c, parent_tid, child_tid);
	if (r < 0)
		thread_release_vfork_child(c);
	else
		c->os_tid = (int32_t)r;
	return r;
}

static long app_clone(struct jit_thread *t, unsigned long flags, long stack, long parent_tid,
		      long child_tid, long tls)
{
	if ((flags & CLONE_THREAD) && (flags & CLONE_VM))
		return app_clone_thread(t, flags, stack, parent_tid, child_tid, tls);
	cpuid_table_save(false);
	if ((flags & CLONE_VM) && !(flags & CLONE_VFORK))
		return app_clone_shared_memory(t, flags, stack, parent_tid, child_tid, tls);
	long r;
	if ((flags & CLONE_VM) && app_clone_vfork(t, flags, stack, parent_tid, child_tid, tls, &r))
		return r;
	/* A process with a copy of everything, continuing in the dispatcher on the stack and
	 * TLS it asked for. A CLONE_VFORK child too when it cannot share our memory (see
	 * app_clone_vfork): we still wait for its exec or exit. */
	unsigned long real = flags & ~(unsigned long)(CLONE_VM | CLONE_SETTLS);
	forked_code_before_fork();
	r = rt_syscall6(SYS_clone, (long)real, 0, parent_tid, child_tid, 0, 0);
	if (r == 0) {
		if (stack)
			t->gpr[JIT_GPR_RSP] = (uint64_t)stack;
		if (flags & CLONE_SETTLS)
			t->app_fs = (uint64_t)tls;
		forked_child(t, false);
		forked_code_in_child();
	}
	return r;
}

/* What the kernel would refuse before replacing the process: we must refuse it too, so
 * that the app sees the error instead of a new runtime dying on it. */
static long exec_precheck(const char *path)
{
	long r = rt_syscall4(SYS_faccessat, AT_FDCWD, (long)path, X_OK, 0);
	if (r < 0)
		return r;
	long fd = rt_openat(AT_FDCWD, path, O_RDONLY | O_CLOEXEC, 0);
	if (fd < 0)
		return fd;
	unsigned char head[4] = {0};
	long n = rt_read((int)fd, head, sizeof head);
	rt_close((int)fd);
	if (n == -EISDIR)
		return -EACCES;
	if (n < 0)
		return n;
	bool elf = n == 4 && memcmp(head, "\177ELF", 4) == 0;
	bool script = n >= 2 && head[0] == '#' && head[1] == '!';
	return elf || script ? 0 : -ENOEXEC;
}

static size_t count_strings(char *const *v)
{
	size_t n = 0;
	while (v && v[n])
		n++;
	return n;
}

/* The entries of the app's NULL-terminated argv, -EFAULT when it cannot be read (as the
 * kernel would answer before replacing anything). */
static long app_vector_length(char *const *v)
{
	long n = 0;
	for (char *entry = (char *)1; v; n++) {
		if (!app_copy_in(&entry, (uint64_t)&v[n], sizeof entry))
			return -EFAULT;
		if (!entry)
			break;
	}
	return n;
}

/* The runtime lock is free during the exec: a vfork child shares it with its parent, which
 * must find it free once the exec succeeded. A native exec takes the app's seccomp filters
 * to the kernel (the runtime makes no other call after them). */
static long exec_unlocked(struct jit_thread *t, long nr, const long a[5], bool native)
{
	struct seccomp_filter *filters = native ? seccomp_hold_for_exec(t) : NULL;
	runtime_unlock();
	runtime_fds_before_exec();
	signals_before_exec(t);
	if (native)
		seccomp_give_to_kernel(filters);
	long r = rt_syscall6(nr, a[0], a[1], a[2], a[3], a[4], 0);
	signals_after_failed_exec(t);
	runtime_fds_after_failed_exec();
	runtime_lock();
	seccomp_let_go(filters);
	return r;
}

static long execve_unlocked(struct jit_thread *t, const char *path, char *const *argv,
			    char *const *envp, bool native)
{
	return exec_unlocked(t, SYS_execve, (const long[5]){(long)path, (long)argv, (long)envp},
			     native);
}

/* ppoll, epoll_pwait, epoll_pwait2 (mask at a[i], its size at a[i + 1]); pselect6's a[5]
 * points at {mask, size}. See signals_real_mask. */
static long wait_with_temporary_mask(struct jit_thread *t, long nr, const long a[6], int i)
{
	long args[6] = {a[0], a[1], a[2], a[3], a[4], a[5]};
	struct {
		uint64_t mask, size;
	} pselect_data;
	uint64_t mask_addr = (uint64_t)a[i], mask_size = (uint64_t)a[i + 1];
	if (nr == SYS_pselect6) {
		if (!a[5])
			return rt_syscall6(nr, a[0], a[1], a[2], a[3], a[4], a[5]);
		if (!app_copy_in(&pselect_data, (uint64_t)a[5], sizeof pselect_data))
			return -EFAULT;
		mask_addr = pselect_data.mask;
		mask_size = pselect_data.size;
	}
	uint64_t mask, real;
	if (!mask_addr || mask_size != 8 || !app_copy_in(&mask, mask_addr, sizeof mask))
		return rt_syscall6(nr, a[0], a[1], a[2], a[3], a[4], a[5]); /* the kernel says */
	real = signals_real_mask(mask);
	if (nr == SYS_pselect6) {
		pselect_data.mask = (uint64_t)&real;
		args[5] = (long)&pselect_data;
	} else {
		args[i] = (long)&real;
	}
	long r = rt_syscall6(nr, args[0], args[1], args[2], args[3], args[4], args[5]);
	signals_after_temporary_mask(t, mask, r);
	return r;
}

static char *const *exec_knobs;

void jit_set_exec_knobs(char *const *knobs)
{
	exec_knobs = knobs;
}

/* The process image ends if the execve succeeds: the clients' reports, the kept code. */
static void before_exec(struct jit_thread *t)
{
	instrument_before_exec(t);
	if (!t->vfork_child) {
		persist_save();
		cpuid_table_save(false);
		forked_code_report();
	}
}

/* A traced process (PTRACE_TRACEME, or attached before its exec) runs its next program
 * natively: its tracer would see the runtime's state, not the program's. */
static bool exec_natively_for_tracer(const char *path)
{
	int tracer = proc_self_tracer();
	if (!tracer)
		return false;
	char name[256];
	if (!app_copy_string(name, (uint64_t)path, sizeof name))
		rt_strlcpy(name, "?", sizeof name);
	jit_message("warning: process %d is traced by process %d (ptrace): %s runs natively, "
		    "not followed",
		    (int)rt_getpid(), tracer, name);
	return true;
}

/* The path a followed execveat(dirfd, path, argv, envp, flags) runs, for the next image to
 * open after the exec, when the app's descriptors may be gone (O_CLOEXEC): the file the
 * descriptor names (fexecve: AT_EMPTY_PATH), or the path under the directory it names.
 * A file with no path (a memfd, a deleted file) is reached through a duplicate of the
 * descriptor that the exec keeps. 0, or -errno as execveat would fail. */
static long exec_target(long dirfd, const char *path, long flags, char *out, size_t cap)
{
	if (flags & ~(long)(AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW))
		return -EINVAL;
	if (path[0] == '/' || (dirfd == AT_FDCWD && path[0])) {
		rt_strlcpy(out, path, cap);
	} else {
		if (!path[0] && !(flags & AT_EMPTY_PATH))
			return -ENOENT;
		char link[64];
		rt_format(link, sizeof link, "/proc/self/fd/%ld", dirfd);
		long n = rt_syscall3(SYS_readlink, (long)link, (long)out, (long)cap - 1);
		if (n < 0)
			return n == -ENOENT ? -EBADF : n;
		out[n] = '\0';
		bool reachable = out[0] == '/' && !rt_ends_with(out, " (deleted)");
		if (!path[0] && !reachable) {
			long kept = rt_syscall3(SYS_fcntl, dirfd, F_DUPFD, 3);
			if (kept < 0)
				return kept;
			rt_format(out, cap, "/proc/self/fd/%ld", kept);
		} else if (path[0]) {
			size_t len = strlen(out);
			rt_format(out + len, cap - len, "/%s", path);
		}
	}
	if (flags & AT_SYMLINK_NOFOLLOW) {
		char target[8];
		if (rt_syscall3(SYS_readlink, (long)out, (long)target, sizeof target) >= 0)
			return -ELOOP; /* the last component is a symbolic link */
	}
	return 0;
}

static long app_execve(struct jit_thread *t, const char *path, char *const *argv, char *const *envp)
{
	path = proc_self_exec_path(path);
	/* A descriptor's own name runs its file, as fexecve does (the descriptor may not
	 * outlive the exec: O_CLOEXEC, which the kernel closes only once the file is open). */
	long fd;
	char target[PATH_MAX];
	if (jit_config.follow_execv && proc_self_fd_path(path, &fd)) {
		long r = exec_target(fd, "", AT_EMPTY_PATH, target, sizeof target);
		if (r < 0)
			return r == -EBADF ? -ENOENT : r;
		path = target;
	}
	long check = exec_precheck(path);
	if (!jit_config.follow_execv || (check == 0 && exec_natively_for_tracer(path))) {
		/* The kernel gives its own errors, and may know formats beyond ELF and #!. */
		if (check == 0 || check == -ENOEXEC)
			before_exec(t);
		return execve_unlocked(t, path, argv, envp, true);
	}
	long args = app_vector_length(argv);
	if (check == 0 && args < 0)
		check = args;
	if (check < 0)
		return check;
	long env_room = exec_env_room(envp);
	if (env_room < 0)
		return env_room;
	size_t prefix = count_strings(jit_config.reexec_argv);
	char *const *extra = t->vfork_child ? NULL : exec_knobs;
	size_t nextra = count_strings(extra);
	size_t nargs = prefix + nextra + (size_t)args + 7;
	/* (the arguments and the environment in one block: a vfork child's parent frees it) */
	char **nargv = rt_calloc(1, nargs * sizeof *nargv + (size_t)env_room);
	int filters = seccomp_exec_handoff(t);
	if (!nargv || filters < 0) {
		rt_free(nargv);
		return filters < 0 ? filters : -ENOMEM;
	}
	char *const *nenvp = env_room ? exec_env_hide(envp, nargv + nargs, (size_t)env_room) : envp;
	before_exec(t);
	size_t k = 0;
	for (size_t i = 0; i < prefix; i++)
		nargv[k++] = jit_config.reexec_argv[i];
	for (size_t i = 0; i < nextra; i++)
		nargv[k++] = extra[i];
	char filters_fd[16];
	if (filters) {
		rt_format(filters_fd, sizeof filters_fd, "%d", filters);
		nargv[k++] = "-jit:seccomp_fd";
		nargv[k++] = filters_fd;
	}
	if (args > 0) {
		nargv[k++] = "-jit:argv0";
		nargv[k++] = argv[0];
	}
	nargv[k++] = "--";
	nargv[k++] = (char *)path;
	for (long i = 1; i < args; i++)
		nargv[k++] = argv[i];
	t->exec_argv = nargv; /* a vfork child's parent frees it after a successful exec */
	/* (for the new image only: a failed exec leaves this one as it was) */
	long before = persist_in_session() ? rt_syscall1(SYS_personality, 0xffffffff) : -1;
	if (before >= 0)
		rt_syscall1(SYS_personality, before | ADDR_NO_RANDOMIZE);
	long r = execve_unlocked(t, nargv[0], nargv, nenvp, false);
	if (before >= 0)
		rt_syscall1(SYS_personality, before);
	t->exec_argv = NULL;
	rt_free(nargv);
	seccomp_exec_failed(filters);
	return r;
}

static long app_execveat(struct jit_thread *t, const long a[6])
{
	char path[PATH_MAX], target[PATH_MAX];
	if (!app_copy_string(path, (uint64_t)a[1], sizeof path))
		return -EFAULT;
	long r = exec_target(a[0], path, a[4], target, sizeof target);
	return r < 0 ? r : app_execve(t, target, (char *const *)a[2], (char *const *)a[3]);
}

/* One thread of several ends (the kernel clears and wakes its CHILD_CLEARTID word). */
static _Noreturn void thread_leaves(struct jit_thread *t, long status)
{
	threads_exiting(t);
	runtime_unlock();
	rt_syscall1(SYS_exit, status);
	__builtin_unreachable();
}

/* unshare(CLONE_NEWUSER) and setns into a user namespace need a process of one thread: the
 * runtime's own threads (a recorder's writer) make them fail where the app alone would not.
 * Said once, when that is why. */
static void explain_single_thread_needed(long nr, const long a[6])
{
	static bool said;
	bool user_ns = nr == SYS_unshare ? (a[0] & CLONE_NEWUSER) != 0
		       : nr == SYS_setns ? !a[1] || (a[1] & CLONE_NEWUSER)
					 : false;
	long helpers = helper_tids_live();
	if (said || !user_ns || !helpers)
		return;
	said = true;
	jit_message("warning: %s of a user namespace failed (EINVAL): it needs a process of one "
		    "thread, and the runtime runs %ld of its own in this one (a recording's "
		    "writer); without recording (-log 0) the call succeeds",
		    nr == SYS_unshare ? "unshare" : "setns", helpers);
}

static long dispatch(struct jit_thread *t, long nr, const long a[6])
{
	long r;
	switch (nr) {
	case SYS_arch_prctl:
		return arch_prctl(t, a[0], a[1]);
	case SYS_brk:
	case SYS_mmap:
	case SYS_munmap:
	case SYS_mprotect:
	case SYS_mremap:
		return jit_app_memory_syscall(nr, a);
	case SYS_exit:
	case SYS_exit_group:
		if (t->vfork_child) {
			/* Its own process ends: nothing to report for the parent's, whose lock
			 * must stay usable. */
			__atomic_store_n(&t->exited, 1, __ATOMIC_RELEASE);
			runtime_unlock();
			rt_exit_group((int)a[0]);
			__builtin_unreachable();
		}
		if (nr == SYS_exit_group)
			jit_process_exit((int)a[0]);
		if (threads_live() > 1)
			thread_leaves(t, a[0]);
		jit_process_exit((int)a[0]);
	case SYS_rt_sigaction:
		return signals_app_sigaction(t, (int)a[0], (uint64_t)a[1], (uint64_t)a[2],
					     (uint64_t)a[3]);
	case SYS_rt_sigprocmask:
		return signals_app_sigprocmask(t, (int)a[0], (uint64_t)a[1], (uint64_t)a[2],
					       (uint64_t)a[3]);
	case SYS_rt_sigsuspend:
		runtime_unlock();
		r = signals_sigsuspend(t, (uint64_t)a[0], (uint64_t)a[1]);
		runtime_lock();
		return r;
	case SYS_ppoll:
	case SYS_epoll_pwait:
	case SYS_epoll_pwait2:
	case SYS_pselect6:
		runtime_unlock();
		r = wait_with_temporary_mask(t, nr, a, nr == SYS_ppoll ? 3 : 4);
		runtime_lock();
		return r;
	case SYS_sigaltstack:
		return signals_app_sigaltstack(t, (uint64_t)a[0], (uint64_t)a[1]);
	case SYS_rt_sigreturn:
		signals_sigreturn(t);
		return 0; /* not a result: syscall_dispatch leaves the restored registers */
	case SYS_clone3:
		return -ENOSYS; /* glibc falls back to clone, which we handle */
	case SYS_seccomp:
		if (a[0] == SECCOMP_SET_MODE_STRICT || a[0] == SECCOMP_SET_MODE_FILTER)
			return seccomp_set_mode(t, (unsigned long)a[0], (unsigned long)a[1],
						(uint64_t)a[2]);
		break; /* the queries reach the kernel */
	case SYS_prctl:
		if (a[0] == PR_GET_SECCOMP)
			return seccomp_mode(t);
		if (a[0] == PR_SET_SECCOMP && a[1] == SECCOMP_MODE_STRICT)
			return seccomp_set_mode(t, SECCOMP_SET_MODE_STRICT, 0, 0);
		if (a[0] == PR_SET_SECCOMP && a[1] == SECCOMP_MODE_FILTER)
			return seccomp_set_mode(t, SECCOMP_SET_MODE_FILTER, 0, (uint64_t)a[2]);
		if (a[0] == PR_SET_SECCOMP)
			return -EINVAL;
		break;
	case SYS_rseq:
		/* The kernel would write the CPU number into the app's memory at any moment,
		 * and restart critical sections at app addresses the thread never runs from (it
		 * runs translations): no rseq, as glibc copes with (sched_getcpu asks getcpu). */
		return -ENOSYS;
	case SYS_clone:
		return app_clone(t, (unsigned long)a[0], a[1], a[2], a[3], a[4]);
	case SYS_vfork:
		return app_clone(t, CLONE_VM | CLONE_VFORK | SIGCHLD, 0, 0, 0, 0);
	case SYS_fork:
		return app_clone(t, SIGCHLD, 0, 0, 0, 0);
	case SYS_execve:
		return app_execve(t, (const char *)a[0], (char *const *)a[1], (char *const *)a[2]);
	case SYS_execveat:
		if (jit_config.follow_execv)
			return app_execveat(t, a);
		before_exec(t);
		return exec_unlocked(t, nr, a, true);
	case SYS_getdents:
	case SYS_getdents64:
		runtime_unlock();
		r = proc_fds_getdents(nr, a);
		runtime_lock();
		return r;
	case SYS_readlink:
		if (proc_self_readlink(AT_FDCWD, (const char *)a[0], (char *)a[1], a[2], &r))
			return r;
		break;
	case SYS_readlinkat:
		if (proc_self_readlink((int)a[0], (const char *)a[1], (char *)a[2], a[3], &r))
			return r;
		break;
	case SYS_open:
		if (proc_self_open(t, AT_FDCWD, (const char *)a[0], (int)a[1], (int)a[2], &r))
			return r;
		break;
	case SYS_openat:
		if (proc_self_open(t, (int)a[0], (const char *)a[1], (int)a[2], (int)a[3], &r))
			return r;
		break;
	default:
		if (runtime_fds_syscall(nr, a, &r))
			return r;
		break;
	}
	/* The kernel's own work, which may block: other threads may use the runtime meanwhile. */
	runtime_unlock();
	r = rt_syscall6(nr, a[0], a[1], a[2], a[3], a[4], a[5]);
	runtime_lock();
	if (r == -EINVAL)
		explain_single_thread_needed(nr, a);
	return runtime_fds_result(nr, a, r);
}

long syscall_refused(struct jit_thread *t, const struct seccomp_verdict *v)
{
	switch (v->outcome) {
	case SECCOMP_TRAPS:
		signals_force(t, &v->info);
		return v->result;
	case SECCOMP_KILLS_THREAD:
		if (!t->vfork_child && threads_live() > 1) {
			/* Clients see the thread's exit (a recorder writes what the kernel
			 * would at it, and hands its turn on). */
			const long exit_args[6] = {0};
			instrument_syscall_pre(t, SYS_exit, exit_args);
			thread_leaves(t, 0);
		}
		signals_die_by(v->sig, JIT_DEATH_IN_SYSCALL); /* the last thread: the process */
	case SECCOMP_KILLS_PROCESS:
		signals_die_by(v->sig, JIT_DEATH_IN_SYSCALL);
	default:
		return v->result;
	}
}

/* A syscall the app's filters refuse never starts: clients see its result only (a replay
 * injects it and runs no filter). */
static long refused_for_clients(struct jit_thread *t, long nr, const long args[6],
				const struct seccomp_verdict *v)
{
	t->syscall_in_progress = nr;
	long result = syscall_refused(t, v);
	if (nr != SYS_rt_sigreturn)
		instrument_syscall_post(t, nr, args, result);
	t->syscall_in_progress = -1;
	return result;
}

static void syscall_args(const struct jit_thread *t, long args[6])
{
	static const int regs[6] = {JIT_GPR_RDI, JIT_GPR_RSI, JIT_GPR_RDX,
				    JIT_GPR_R10, JIT_GPR_R8,  JIT_GPR_R9};
	for (int i = 0; i < 6; i++)
		args[i] = (long)t->gpr[regs[i]];
}

void syscall_dispatch(struct jit_thread *t)
{
	long args[6];
	syscall_args(t, args);
	struct seccomp_verdict v = seccomp_judge(t, AUDIT_ARCH_X86_64, t->gpr[JIT_GPR_RAX],
						 (const uint64_t *)args, t->app_pc);
	syscall_dispatch_judged(t, &v);
}

void syscall_dispatch_judged(struct jit_thread *t, const struct seccomp_verdict *v)
{
	long nr = (long)t->gpr[JIT_GPR_RAX];
	long args[6];
	syscall_args(t, args);
	long result;
	if (v->outcome != SECCOMP_RUNS) {
		result = refused_for_clients(t, nr, args, v);
	} else if (nr != SYS_rt_sigreturn && instrument_syscall_pre(t, nr, args)) {
		result = (long)t->gpr[JIT_GPR_RAX];
	} else {
		t->syscall_in_progress = nr;
		result = dispatch(t, nr, args);
		if (nr == SYS_rt_sigreturn) {
			t->syscall_in_progress = -1;
			return; /* every register is the interrupted code's again */
		}
		/* The kernel cannot write where the runtime keeps code write-protected, nor where
		 * a client withholds pages: the first attempt is never seen. */
		if (result == -EFAULT && code_pages_release_all())
			result = dispatch(t, nr, args);
		if (result == -EFAULT && instrument_syscall_efault(t, nr, args))
			result = dispatch(t, nr, args);
		bool restart = result == -EINTR && signals_restart_syscall(t, nr);
		/* Clients see a restart as the kernel's internal ERESTARTSYS. */
		instrument_syscall_post(t, nr, args, restart ? -JIT_ERESTARTSYS : result);
		t->syscall_in_progress = -1;
		if (restart) {
			/* as the kernel restarts: back to the syscall instruction, number in rax */
			t->app_pc -= 2;
			result = nr;
		}
	}
	t->gpr[JIT_GPR_RAX] = (uint64_t)result;
	/* What the syscall instruction itself does to rcx and r11. */
	t->gpr[JIT_GPR_RCX] = t->app_pc;
	t->gpr[JIT_GPR_R11] = t->rflags;
}

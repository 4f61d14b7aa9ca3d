#include "runtime_fds.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>

#include "app_copy.h"
#include "jit.h"
#include "rt_syscall.h"

enum { WINDOW = 256, LOW_CAP = 4096 };

struct limit {
	uint64_t cur, max;
};

static int once;		   /* set up */
static long base;		   /* the window is [base, base + WINDOW) */
static struct limit app;	   /* what the app sees and sets */
static uint64_t mine[WINDOW / 64]; /* atomic: which numbers of the window are ours */

static long get_limit(struct limit *l)
{
	return rt_syscall4(SYS_prlimit64, 0, RLIMIT_NOFILE, 0, (long)l);
}

static long set_limit(const struct limit *l)
{
	return rt_syscall4(SYS_prlimit64, 0, RLIMIT_NOFILE, (long)l, 0);
}

/* The real limit for an app limit a: room for the window (even when the app lowers its
 * limit below it), as far as a's hard limit allows. */
static struct limit real_for(const struct limit *a)
{
	struct limit r = *a;
	uint64_t top = (uint64_t)(base + WINDOW);
	if (r.cur < top)
		r.cur = top < r.max ? top : r.max;
	return r;
}

/* Makes the kernel's descriptor table reach the window's top now. Grown later, while
 * another thread shares the table (the pinball writer's), the kernel waits for an RCU
 * grace period: 10-30 ms in a VM, longer than a short program's whole run. The table
 * never shrinks. */
static void grow_table(void)
{
	long source = -1;
	for (long fd = 0; fd <= 2 && source < 0; fd++)
		if (rt_syscall2(SYS_fcntl, fd, F_GETFD) >= 0)
			source = fd;
	bool opened = source < 0;
	if (opened)
		source = rt_syscall3(SYS_open, (long)"/", O_RDONLY | O_DIRECTORY | O_CLOEXEC, 0);
	long top = rt_syscall3(SYS_fcntl, source, F_DUPFD_CLOEXEC, base + WINDOW - 1);
	if (top >= 0)
		rt_close((int)top);
	if (opened && source >= 0)
		rt_close((int)source);
}

static void setup(void)
{
	if (__atomic_exchange_n(&once, 1, __ATOMIC_ACQ_REL))
		return;
	if (get_limit(&app) < 0)
		app = (struct limit){1024, 1024};
	struct limit above = {app.cur + WINDOW, app.max};
	if (app.cur <= LOW_CAP && above.cur <= app.max && set_limit(&above) == 0) {
		base = (long)app.cur;
	} else {
		uint64_t top = app.cur < LOW_CAP + WINDOW ? app.cur : LOW_CAP + WINDOW;
		base = top > 2 * WINDOW ? (long)(top - WINDOW) : (long)(top / 2);
	}
	grow_table();
}

void runtime_fds_prepare(void)
{
	setup();
}

static uint64_t bit_of(long fd)
{
	return 1ull << ((fd - base) % 64);
}

bool runtime_fds_owns(long fd)
{
	if (fd < base || fd >= base + WINDOW || !__atomic_load_n(&once, __ATOMIC_ACQUIRE))
		return false;
	return __atomic_load_n(&mine[(fd - base) / 64], __ATOMIC_ACQUIRE) & bit_of(fd);
}

int jit_runtime_fd(int fd)
{
	setup();
	long moved = rt_syscall3(SYS_fcntl, fd, F_DUPFD_CLOEXEC, base);
	if (moved < 0)
		return fd;
	if (moved >= base + WINDOW) { /* the window is full: it stays where it is */
		rt_close((int)moved);
		return fd;
	}
	__atomic_or_fetch(&mine[(moved - base) / 64], bit_of(moved), __ATOMIC_RELEASE);
	rt_close(fd);
	return (int)moved;
}

int jit_runtime_fd_close(int fd)
{
	if (runtime_fds_owns(fd))
		__atomic_and_fetch(&mine[(fd - base) / 64], ~bit_of(fd), __ATOMIC_RELEASE);
	return (int)rt_close(fd);
}

/* close_range over [first, last] but around every descriptor of ours. */
static long close_range_around(unsigned first, unsigned last, unsigned flags)
{
	for (long fd = base; fd < base + WINDOW && fd <= (long)last; fd++) {
		if (fd < (long)first || !runtime_fds_owns(fd))
			continue;
		if (fd > (long)first) {
			long r = rt_syscall3(SYS_close_range, first, (unsigned)fd - 1, flags);
			if (r < 0)
				return r;
		}
		if (fd == (long)last)
			return 0;
		first = (unsigned)fd + 1;
	}
	return rt_syscall3(SYS_close_range, first, last, flags);
}

static bool about_own_nofile(long pid, long resource)
{
	return resource == RLIMIT_NOFILE && (pid == 0 || pid == rt_getpid());
}

/* prlimit64 on the app's own RLIMIT_NOFILE: it sees and sets its own limit; the real one
 * keeps room for the window. */
static long app_prlimit(const struct limit *new_limit, struct limit *old_limit)
{
	struct limit old = app;
	if (new_limit) {
		struct limit n;
		if (!app_copy_in(&n, (uint64_t)new_limit, sizeof n))
			return -EFAULT;
		if (n.cur > n.max)
			return -EINVAL;
		struct limit r = real_for(&n);
		long rc = set_limit(&r);
		if (rc < 0)
			return rc;
		app = n;
	}
	if (old_limit && !app_copy_out((uint64_t)old_limit, &old, sizeof old))
		return -EFAULT;
	return 0;
}

bool runtime_fds_syscall(long nr, const long a[6], long *result)
{
	if (!__atomic_load_n(&once, __ATOMIC_ACQUIRE))
		return false;
	switch (nr) {
	case SYS_close:
		if (!runtime_fds_owns(a[0]))
			return false;
		*result = -EBADF; /* as for a number beyond the app's limit */
		return true;
	case SYS_close_range:
		*result = close_range_around((unsigned)a[0], (unsigned)a[1], (unsigned)a[2]);
		return true;
	case SYS_dup2:
	case SYS_dup3:
		if (!runtime_fds_owns(a[1]))
			return false;
		*result = -EBADF;
		return true;
	case SYS_fcntl:
		if ((a[1] != F_DUPFD && a[1] != F_DUPFD_CLOEXEC) || (uint64_t)a[2] < app.cur)
			return false;
		*result = -EINVAL; /* a number the app's limit does not allow */
		return true;
	case SYS_getrlimit:
	case SYS_setrlimit:
		if (a[0] != RLIMIT_NOFILE)
			return false;
		*result = nr == SYS_getrlimit ? app_prlimit(NULL, (struct limit *)a[1])
					      : app_prlimit((const struct limit *)a[1], NULL);
		return true;
	case SYS_prlimit64:
		if (!about_own_nofile(a[0], a[1]))
			return false;
		*result = app_prlimit((const struct limit *)a[2], (struct limit *)a[3]);
		return true;
	default:
		return false;
	}
}

/* Syscalls whose result is a new descriptor. */
static bool makes_fd(long nr)
{
	switch (nr) {
	case SYS_open:
	case SYS_openat:
	case SYS_openat2:
	case SYS_creat:
	case SYS_open_by_handle_at:
	case SYS_socket:
	case SYS_accept:
	case SYS_accept4:
	case SYS_dup:
	case SYS_epoll_create:
	case SYS_epoll_create1:
	case SYS_eventfd:
	case SYS_eventfd2:
	case SYS_signalfd:
	case SYS_signalfd4:
	case SYS_timerfd_create:
	case SYS_inotify_init:
	case SYS_inotify_init1:
	case SYS_fanotify_init:
	case SYS_memfd_create:
	case SYS_userfaultfd:
	case SYS_pidfd_open:
	case SYS_pidfd_getfd:
	case SYS_perf_event_open:
	case SYS_mq_open:
		return true;
	default:
		return false;
	}
}

static bool beyond_app_limit(long fd)
{
	return fd >= 0 && (uint64_t)fd >= app.cur;
}

/* A new descriptor of the app's beyond its limit. The kernel gave the lowest number free,
 * and a runtime thread may have held a lower one for a moment (opened, not yet moved to the
 * window by jit_runtime_fd): moves it down to the lowest number free, waiting a little for
 * such a thread to go on. The descriptor, or -1 (closed) when the app has none free below
 * its limit. (Without it, replay.fd_hog's recorded run opened one file fewer than natively
 * in about one run of twenty.) */
static long below_limit(long fd)
{
	enum { TRIES = 20, YIELDS = 8 }; /* then waits of 100 us: at most about 1.3 ms */
	long flags = rt_syscall2(SYS_fcntl, fd, F_GETFD);
	long dup = flags >= 0 && (flags & FD_CLOEXEC) ? F_DUPFD_CLOEXEC : F_DUPFD;
	for (int i = 0; i < TRIES && flags >= 0; i++) {
		long low = rt_syscall3(SYS_fcntl, fd, dup, 0);
		if (low >= 0 && !beyond_app_limit(low)) {
			rt_close((int)fd);
			return low;
		}
		if (low >= 0)
			rt_close((int)low);
		struct timespec wait = {0, 100000};
		if (i < YIELDS)
			rt_syscall0(SYS_sched_yield);
		else
			rt_syscall2(SYS_nanosleep, (long)&wait, 0);
	}
	rt_close((int)fd);
	return -1;
}

long runtime_fds_result(long nr, const long a[6], long result)
{
	if (result < 0 || !__atomic_load_n(&once, __ATOMIC_ACQUIRE))
		return result;
	if (makes_fd(nr)) {
		if (!beyond_app_limit(result))
			return result;
		long low = below_limit(result);
		return low >= 0 ? low : -EMFILE;
	}
	if (nr != SYS_pipe && nr != SYS_pipe2 && nr != SYS_socketpair)
		return result;
	int pair[2];
	uint64_t where = (uint64_t)(nr == SYS_socketpair ? a[3] : a[0]);
	if (!app_copy_in(pair, where, sizeof pair) ||
	    (!beyond_app_limit(pair[0]) && !beyond_app_limit(pair[1])))
		return result;
	for (int i = 0; i < 2; i++)
		if (beyond_app_limit(pair[i]))
			pair[i] = (int)below_limit(pair[i]);
	if (pair[0] >= 0 && pair[1] >= 0 && app_copy_out(where, pair, sizeof pair))
		return result;
	for (int i = 0; i < 2; i++)
		if (pair[i] >= 0)
			rt_close(pair[i]);
	return -EMFILE;
}

void runtime_fds_before_exec(void)
{
	if (__atomic_load_n(&once, __ATOMIC_ACQUIRE))
		set_limit(&app);
}

void runtime_fds_after_failed_exec(void)
{
	if (__atomic_load_n(&once, __ATOMIC_ACQUIRE)) {
		struct limit r = real_for(&app);
		set_limit(&r);
	}
}

#include "syscall_table.h"

#include <fcntl.h>
#include <linux/futex.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <sys/sysinfo.h>
#include <sys/time.h>
#include <sys/times.h>
#include <sys/uio.h>
#include <sys/utsname.h>
#include <termios.h>
#include <time.h>

/* How the size of one written buffer is found. */
enum size_kind {
	NONE,
	FIXED,	    /* `size` bytes */
	RESULT,	    /* the result, when positive */
	ARG,	    /* the value of argument `size` */
	ARG_TIMES,  /* argument `size` times `mult` */
	SOCKLEN,    /* *(uint32_t *)argument `size`, after the call */
	IOV_RESULT, /* iovec array (count in argument `size`): the first `result` bytes */
	SPECIAL,    /* handled by code below */
};

struct out_buf {
	uint8_t arg; /* which argument is the pointer */
	uint8_t kind;
	uint32_t size;
	uint32_t mult;
};

struct syscall_desc {
	uint8_t known;
	struct out_buf out[3];
};

#define K(...)                                                                                     \
	{                                                                                          \
		1,                                                                                 \
		{                                                                                  \
			__VA_ARGS__                                                                \
		}                                                                                  \
	}
#define OUT(a, k, s)                                                                               \
	{                                                                                          \
		(a), (k), (s), 0                                                                   \
	}
#define OUTM(a, s, m)                                                                              \
	{                                                                                          \
		(a), ARG_TIMES, (s), (m)                                                           \
	}

static const struct syscall_desc table[] = {
    /* no memory written */
    [SYS_write] = K(),
    [SYS_close] = K(),
    [SYS_lseek] = K(),
    [SYS_mprotect] = K(),
    [SYS_munmap] = K(),
    [SYS_brk] = K(),
    [SYS_rt_sigreturn] = K(),
    [SYS_pwrite64] = K(),
    [SYS_writev] = K(),
    [SYS_pwritev] = K(),
    [SYS_access] = K(),
    [SYS_sched_yield] = K(),
    [SYS_mremap] = K(),
    [SYS_msync] = K(),
    [SYS_madvise] = K(),
    [SYS_dup] = K(),
    [SYS_dup2] = K(),
    [SYS_dup3] = K(),
    [SYS_pause] = K(),
    [SYS_alarm] = K(),
    [SYS_getpid] = K(),
    [SYS_sendfile] = K(),
    [SYS_socket] = K(),
    [SYS_connect] = K(),
    [SYS_sendto] = K(),
    [SYS_sendmsg] = K(),
    [SYS_shutdown] = K(),
    [SYS_bind] = K(),
    [SYS_listen] = K(),
    [SYS_setsockopt] = K(),
    [SYS_exit] = K(),
    [SYS_kill] = K(),
    [SYS_flock] = K(),
    [SYS_fsync] = K(),
    [SYS_fdatasync] = K(),
    [SYS_truncate] = K(),
    [SYS_ftruncate] = K(),
    [SYS_chdir] = K(),
    [SYS_fchdir] = K(),
    [SYS_rename] = K(),
    [SYS_mkdir] = K(),
    [SYS_rmdir] = K(),
    [SYS_creat] = K(),
    [SYS_link] = K(),
    [SYS_unlink] = K(),
    [SYS_symlink] = K(),
    [SYS_chmod] = K(),
    [SYS_fchmod] = K(),
    [SYS_chown] = K(),
    [SYS_fchown] = K(),
    [SYS_lchown] = K(),
    [SYS_umask] = K(),
    [SYS_getuid] = K(),
    [SYS_getgid] = K(),
    [SYS_setuid] = K(),
    [SYS_setgid] = K(),
    [SYS_geteuid] = K(),
    [SYS_getegid] = K(),
    [SYS_setpgid] = K(),
    [SYS_getppid] = K(),
    [SYS_getpgrp] = K(),
    [SYS_setsid] = K(),
    [SYS_setreuid] = K(),
    [SYS_setregid] = K(),
    [SYS_setresuid] = K(),
    [SYS_setresgid] = K(),
    [SYS_getpgid] = K(),
    [SYS_setfsuid] = K(),
    [SYS_setfsgid] = K(),
    [SYS_getsid] = K(),
    [SYS_personality] = K(),
    [SYS_getpriority] = K(),
    [SYS_setpriority] = K(),
    [SYS_sched_setparam] = K(),
    [SYS_sched_setscheduler] = K(),
    [SYS_sched_getscheduler] = K(),
    [SYS_sched_get_priority_max] = K(),
    [SYS_sched_get_priority_min] = K(),
    [SYS_mlock] = K(),
    [SYS_munlock] = K(),
    [SYS_mlockall] = K(),
    [SYS_munlockall] = K(),
    [SYS_sync] = K(),
    [SYS_gettid] = K(),
    [SYS_tkill] = K(),
    [SYS_tgkill] = K(),
    [SYS_exit_group] = K(),
    [SYS_fadvise64] = K(),
    [SYS_set_tid_address] = K(),
    [SYS_unlinkat] = K(),
    [SYS_renameat] = K(),
    [SYS_renameat2] = K(),
    [SYS_mkdirat] = K(),
    [SYS_fchownat] = K(),
    [SYS_fchmodat] = K(),
    [SYS_faccessat] = K(),
    [SYS_faccessat2] = K(),
    [SYS_linkat] = K(),
    [SYS_symlinkat] = K(),
    [SYS_utimensat] = K(),
    [SYS_fallocate] = K(),
    [SYS_eventfd] = K(),
    [SYS_eventfd2] = K(),
    [SYS_epoll_create] = K(),
    [SYS_epoll_create1] = K(),
    [SYS_epoll_ctl] = K(),
    [SYS_inotify_init] = K(),
    [SYS_inotify_init1] = K(),
    [SYS_inotify_add_watch] = K(),
    [SYS_inotify_rm_watch] = K(),
    [SYS_set_robust_list] = K(),
    [SYS_rseq] = K(),
    [SYS_memfd_create] = K(),
    [SYS_open] = K(),
    [SYS_openat] = K(),
    [SYS_close_range] = K(),
    [SYS_rt_sigqueueinfo] = K(),
    [SYS_execve] = K(),
    [SYS_utime] = K(),
    [SYS_utimes] = K(),
    [SYS_futimesat] = K(),
    [SYS_mknod] = K(),
    [SYS_mknodat] = K(),
    [SYS_timerfd_create] = K(),
    [SYS_signalfd] = K(),
    [SYS_signalfd4] = K(),
    [SYS_fork] = K(),
    [SYS_vfork] = K(),
    [SYS_sched_setaffinity] = K(),
    [SYS_readahead] = K(),
    [SYS_ioprio_set] = K(),
    [SYS_ioprio_get] = K(),
    [SYS_membarrier] = K(),
    [SYS_copy_file_range] = K(),
    [SYS_splice] = K(),
    [SYS_tee] = K(),
    [SYS_sync_file_range] = K(),
    [SYS_setitimer] = K(),
    /* memory written */
    [SYS_read] = K(OUT(1, RESULT, 0)),
    [SYS_pread64] = K(OUT(1, RESULT, 0)),
    [SYS_readv] = K(OUT(1, IOV_RESULT, 2)),
    [SYS_preadv] = K(OUT(1, IOV_RESULT, 2)),
    [SYS_preadv2] = K(OUT(1, IOV_RESULT, 2)),
    [SYS_stat] = K(OUT(1, FIXED, sizeof(struct stat))),
    [SYS_fstat] = K(OUT(1, FIXED, sizeof(struct stat))),
    [SYS_lstat] = K(OUT(1, FIXED, sizeof(struct stat))),
    [SYS_newfstatat] = K(OUT(2, FIXED, sizeof(struct stat))),
    [SYS_statx] = K(OUT(4, FIXED, 256)),
    [SYS_statfs] = K(OUT(1, FIXED, sizeof(struct statfs))),
    [SYS_fstatfs] = K(OUT(1, FIXED, sizeof(struct statfs))),
    [SYS_getdents64] = K(OUT(1, RESULT, 0)),
    [SYS_getdents] = K(OUT(1, RESULT, 0)),
    [SYS_readlink] = K(OUT(1, RESULT, 0)),
    [SYS_readlinkat] = K(OUT(2, RESULT, 0)),
    [SYS_getcwd] = K(OUT(0, RESULT, 0)),
    [SYS_uname] = K(OUT(0, FIXED, sizeof(struct utsname))),
    [SYS_sysinfo] = K(OUT(0, FIXED, sizeof(struct sysinfo))),
    [SYS_times] = K(OUT(0, FIXED, sizeof(struct tms))),
    [SYS_gettimeofday] = K(OUT(0, FIXED, sizeof(struct timeval)), OUT(1, FIXED, 8)),
    [SYS_time] = K(OUT(0, FIXED, 8)),
    [SYS_clock_gettime] = K(OUT(1, FIXED, sizeof(struct timespec))),
    [SYS_clock_getres] = K(OUT(1, FIXED, sizeof(struct timespec))),
    [SYS_nanosleep] = K(OUT(1, FIXED, sizeof(struct timespec))),
    [SYS_clock_nanosleep] = K(OUT(3, FIXED, sizeof(struct timespec))),
    [SYS_getrusage] = K(OUT(1, FIXED, sizeof(struct rusage))),
    [SYS_getrlimit] = K(OUT(1, FIXED, sizeof(struct rlimit))),
    [SYS_setrlimit] = K(),
    [SYS_prlimit64] = K(OUT(3, FIXED, sizeof(struct rlimit))),
    [SYS_getrandom] = K(OUT(0, RESULT, 0)),
    [SYS_pipe] = K(OUT(0, FIXED, 8)),
    [SYS_pipe2] = K(OUT(0, FIXED, 8)),
    [SYS_socketpair] = K(OUT(3, FIXED, 8)),
    [SYS_wait4] = K(OUT(1, FIXED, 4), OUT(3, FIXED, sizeof(struct rusage))),
    [SYS_waitid] = K(OUT(2, FIXED, sizeof(siginfo_t)), OUT(4, FIXED, sizeof(struct rusage))),
    [SYS_rt_sigaction] = K(OUT(2, ARG, 3), /* old action: 3 words + the mask */),
    [SYS_rt_sigprocmask] = K(OUT(2, ARG, 3)),
    [SYS_rt_sigpending] = K(OUT(0, ARG, 1)),
    [SYS_rt_sigtimedwait] = K(OUT(1, FIXED, sizeof(siginfo_t))),
    [SYS_rt_sigsuspend] = K(),
    [SYS_sigaltstack] = K(OUT(1, FIXED, sizeof(stack_t))),
    [SYS_getitimer] = K(OUT(1, FIXED, sizeof(struct itimerval))),
    [SYS_poll] = K(OUTM(0, 1, sizeof(struct pollfd))),
    [SYS_ppoll] = K(OUTM(0, 1, sizeof(struct pollfd))),
    [SYS_select] = K(OUT(1, SPECIAL, 0)),
    [SYS_pselect6] = K(OUT(1, SPECIAL, 0)),
    [SYS_epoll_wait] = K(OUTM(1, 2, sizeof(struct epoll_event))),
    [SYS_epoll_pwait] = K(OUTM(1, 2, sizeof(struct epoll_event))),
    [SYS_accept] = K(OUT(1, SOCKLEN, 2), OUT(2, FIXED, 4)),
    [SYS_accept4] = K(OUT(1, SOCKLEN, 2), OUT(2, FIXED, 4)),
    [SYS_getsockname] = K(OUT(1, SOCKLEN, 2), OUT(2, FIXED, 4)),
    [SYS_getpeername] = K(OUT(1, SOCKLEN, 2), OUT(2, FIXED, 4)),
    [SYS_getsockopt] = K(OUT(3, SOCKLEN, 4), OUT(4, FIXED, 4)),
    [SYS_recvfrom] = K(OUT(1, RESULT, 0), OUT(4, SOCKLEN, 5), OUT(5, FIXED, 4)),
    [SYS_recvmsg] = K(OUT(1, SPECIAL, 0)),
    [SYS_sched_getaffinity] = K(OUT(2, RESULT, 0)),
    [SYS_sched_getparam] = K(OUT(1, FIXED, 4)),
    [SYS_getresuid] = K(OUT(0, FIXED, 4), OUT(1, FIXED, 4), OUT(2, FIXED, 4)),
    [SYS_getresgid] = K(OUT(0, FIXED, 4), OUT(1, FIXED, 4), OUT(2, FIXED, 4)),
    [SYS_getgroups] = K(OUTM(1, 0, 4)),
    [SYS_setgroups] = K(),
    [SYS_capget] = K(OUT(1, FIXED, 24)),
    [SYS_get_robust_list] = K(OUT(1, FIXED, 8), OUT(2, FIXED, 8)),
    [SYS_timerfd_gettime] = K(OUT(1, FIXED, sizeof(struct itimerspec))),
    [SYS_timerfd_settime] = K(OUT(3, FIXED, sizeof(struct itimerspec))),
    [SYS_futex] = K(OUT(0, SPECIAL, 0)),
    [SYS_ioctl] = K(OUT(2, SPECIAL, 0)),
    [SYS_fcntl] = K(OUT(2, SPECIAL, 0)),
    [SYS_arch_prctl] = K(OUT(1, SPECIAL, 0)),
    [SYS_prctl] = K(OUT(1, SPECIAL, 0)),
    [SYS_mmap] = K(),
    [SYS_clone] = K(OUT(2, SPECIAL, 0)),
    [SYS_clone3] = K(),
    [SYS_mincore] = K(OUT(2, SPECIAL, 0)),
};

static bool add(struct mem_range *out, int *n, uint64_t addr, uint64_t len)
{
	if (!addr || !len || *n >= SYSCALL_MAX_WRITES)
		return false;
	out[*n].addr = addr;
	out[*n].len = len;
	(*n)++;
	return true;
}

static void add_iov(struct mem_range *out, int *n, const struct iovec *iov, long count, long total)
{
	for (long i = 0; i < count && total > 0; i++) {
		uint64_t len = iov[i].iov_len < (uint64_t)total ? iov[i].iov_len : (uint64_t)total;
		add(out, n, (uint64_t)iov[i].iov_base, len);
		total -= (long)len;
	}
}

/* The syscalls whose written memory depends on a command or a structure. */
static int special(long nr, const long a[6], long result, struct mem_range *out, int n)
{
	switch (nr) {
	case SYS_select:
	case SYS_pselect6: /* the three fd sets, rounded to whole words */
		for (int i = 1; i <= 3; i++)
			add(out, &n, (uint64_t)a[i], (((uint64_t)a[0] + 63) / 64) * 8);
		return n;
	case SYS_recvmsg: {
		const struct msghdr *m = (const struct msghdr *)a[1];
		if (result < 0)
			return n;
		{
			add_iov(out, &n, m->msg_iov, (long)m->msg_iovlen, result);
			add(out, &n, (uint64_t)m->msg_name, m->msg_namelen);
			add(out, &n, (uint64_t)m->msg_control, m->msg_controllen);
		}
		add(out, &n, (uint64_t)a[1], sizeof *m); /* lengths and flags updated */
		return n;
	}
	case SYS_futex: /* no user memory written, but the op decides */
		return n;
	case SYS_ioctl:
		switch ((unsigned long)a[1]) {
		case TCGETS:
			add(out, &n, (uint64_t)a[2], sizeof(struct termios));
			return n;
		case TIOCGWINSZ:
			add(out, &n, (uint64_t)a[2], sizeof(struct winsize));
			return n;
		case FIONREAD:
		case TIOCGPGRP:
			add(out, &n, (uint64_t)a[2], sizeof(int));
			return n;
		case TCSETS:
		case TCSETSW:
		case TCSETSF:
		case TIOCSWINSZ:
		case TIOCSPGRP:
		case FIONBIO:
		case FIOCLEX:
		case FIONCLEX:
			return n;
		default:
			return -1;
		}
	case SYS_fcntl:
		if (a[1] == F_GETLK || a[1] == F_OFD_GETLK)
			add(out, &n, (uint64_t)a[2], sizeof(struct flock));
		return n;
	case SYS_arch_prctl:
		if (a[0] == 0x1003 /* ARCH_GET_FS */ || a[0] == 0x1004 /* ARCH_GET_GS */)
			add(out, &n, (uint64_t)a[1], 8);
		return n;
	case SYS_prctl:
		if (a[0] == 16 /* PR_GET_NAME */)
			add(out, &n, (uint64_t)a[1], 16);
		return n;
	case SYS_clone: /* CLONE_PARENT_SETTID writes the child's tid in the parent */
		if (a[0] & 0x00100000)
			add(out, &n, (uint64_t)a[2], 4);
		return n;
	case SYS_mincore:
		add(out, &n, (uint64_t)a[2], ((uint64_t)a[1] + 4095) / 4096);
		return n;
	default:
		return -1;
	}
}

int syscall_writes(long nr, const long a[6], long result, struct mem_range *out)
{
	if (nr < 0 || (size_t)nr >= sizeof table / sizeof table[0] || !table[nr].known)
		return -1;
	int n = 0;
	bool ok = result >= 0 || result < -4095;
	for (int i = 0; i < 3; i++) {
		const struct out_buf *o = &table[nr].out[i];
		uint64_t ptr = (uint64_t)a[o->arg];
		switch (o->kind) {
		case FIXED:
			if (ok)
				add(out, &n, ptr, o->size);
			break;
		case RESULT:
			if (result > 0)
				add(out, &n, ptr, (uint64_t)result);
			break;
		case ARG:
			if (ok)
				add(out, &n, ptr, (uint64_t)a[o->size]);
			break;
		case ARG_TIMES:
			if (ok && a[o->size] > 0)
				add(out, &n, ptr, (uint64_t)a[o->size] * o->mult);
			break;
		case SOCKLEN:
			if (ok && a[o->size])
				add(out, &n, ptr, *(const uint32_t *)a[o->size]);
			break;
		case IOV_RESULT:
			if (result > 0)
				add_iov(out, &n, (const struct iovec *)ptr, a[o->size], result);
			break;
		case SPECIAL:
			return special(nr, a, result, out, n);
		default:
			break;
		}
	}
	return n;
}

int syscall_changes_memory_map(long nr)
{
	return nr == SYS_mmap || nr == SYS_munmap || nr == SYS_mprotect || nr == SYS_mremap ||
	       nr == SYS_brk;
}

/* Which system calls may wait for another thread of the process. A recorder that lets one
 * thread run at a time must let the others run while a thread waits in the kernel, or the
 * thread it waits for never runs; around a call that cannot wait so, it may keep going. */
#include <fcntl.h>
#include <linux/futex.h>
#include <sys/syscall.h>

#include "syscall_model.h"

static enum syscall_wait futex_wait(long op)
{
	switch (op & FUTEX_CMD_MASK) {
	case FUTEX_WAKE:
	case FUTEX_WAKE_BITSET:
	case FUTEX_WAKE_OP:
	case FUTEX_REQUEUE:
	case FUTEX_CMP_REQUEUE:
		return SYSCALL_WAITS_NEVER;
	default: /* the waits, and the PI locks, which wait for their owner */
		return SYSCALL_MAY_WAIT;
	}
}

static enum syscall_wait fcntl_wait(long cmd)
{
	switch (cmd) {
	case F_SETLKW:
	case F_OFD_SETLKW:
		return SYSCALL_MAY_WAIT;
	default:
		return SYSCALL_WAITS_NEVER;
	}
}

enum syscall_wait syscall_wait_kind(long nr, const long a[6], int *fd_arg)
{
	*fd_arg = 0;
	switch (nr) {
	/* Data through a descriptor: waits only on a pipe, a socket, a terminal... (the
	 * caller looks at what the descriptor is). */
	case SYS_read:
	case SYS_pread64:
	case SYS_readv:
	case SYS_preadv:
	case SYS_preadv2:
	case SYS_write:
	case SYS_pwrite64:
	case SYS_writev:
	case SYS_pwritev:
	case SYS_pwritev2:
		return SYSCALL_WAITS_ON_FD;
	/* The address space, the process's own state, what a file is: no other thread's
	 * doing can hold them up. */
	case SYS_brk:
	case SYS_mmap:
	case SYS_munmap:
	case SYS_mprotect:
	case SYS_mremap:
	case SYS_madvise:
	case SYS_mincore:
	case SYS_getpid:
	case SYS_gettid:
	case SYS_getppid:
	case SYS_getuid:
	case SYS_geteuid:
	case SYS_getgid:
	case SYS_getegid:
	case SYS_clock_gettime:
	case SYS_clock_getres:
	case SYS_gettimeofday:
	case SYS_time:
	case SYS_getrusage:
	case SYS_times:
	case SYS_getcpu:
	case SYS_sched_getaffinity:
	case SYS_getrlimit:
	case SYS_uname:
	case SYS_getcwd:
	case SYS_fstat:
	case SYS_newfstatat:
	case SYS_statx:
	case SYS_lseek:
	case SYS_getdents64:
	case SYS_dup:
	case SYS_dup2:
	case SYS_dup3:
	case SYS_rt_sigaction:
	case SYS_rt_sigprocmask:
	case SYS_sigaltstack:
	case SYS_arch_prctl:
	case SYS_set_tid_address:
	case SYS_set_robust_list:
	case SYS_fadvise64:
		return SYSCALL_WAITS_NEVER;
	case SYS_futex:
		return futex_wait(a[1]);
	case SYS_fcntl:
		return fcntl_wait(a[1]);
	default: /* anything else may (a lock, a child, a signal, a timer, a FIFO's open...) */
		return SYSCALL_MAY_WAIT;
	}
}

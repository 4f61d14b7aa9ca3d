/* Every x86-64 system call: how a replay treats it and the buffers the kernel reads and
 * writes. Sizes are those of the kernel's x86-64 ABI (struct stat is 144 bytes, struct
 * epoll_event 12, siginfo 128, ...), not of any C library's declarations. */
#include <errno.h>
#include <stddef.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/uio.h>

#include "instrument.h"
#include "jit_app.h"
#include "syscall_ranges.h"

enum direction {
	W = 1, /* the kernel writes it (and may read it first) */
	R = 2, /* the kernel only reads it */
};

/* How a buffer's size is found. */
enum size_kind {
	FIXED,	 /* n bytes */
	ARG,	 /* argument `count`, times n */
	RESULT,	 /* written: the result times n; before the call: argument `count` times n */
	SOCKLEN, /* the uint32_t argument `count` points to (before and after the call) */
	IOV,	 /* an iovec array of argument `count` entries; written: the first result bytes */
	FDSET,	 /* a select() fd set: argument 0 bits, in whole words */
};

struct buffer {
	uint8_t arg; /* which argument points to it */
	uint8_t dir; /* 0: no buffer */
	uint8_t kind;
	uint8_t count;
	uint32_t n;
};

struct syscall_desc {
	uint8_t replay;	    /* enum syscall_replay; 0: not a syscall */
	bool commands;	    /* more ranges decided by a command or structure (code) */
	struct buffer b[4]; /* ranges found from the arguments alone */
};

#define OUT(a, size)                                                                               \
	{                                                                                          \
		a, W, FIXED, 0, size                                                               \
	}
#define IN(a, size)                                                                                \
	{                                                                                          \
		a, R, FIXED, 0, size                                                               \
	}
#define OUT_ARG(a, c, size)                                                                        \
	{                                                                                          \
		a, W, ARG, c, size                                                                 \
	}
#define IN_ARG(a, c, size)                                                                         \
	{                                                                                          \
		a, R, ARG, c, size                                                                 \
	}
#define OUT_RESULT(a, c, size)                                                                     \
	{                                                                                          \
		a, W, RESULT, c, size                                                              \
	}
#define OUT_SOCKLEN(a, c)                                                                          \
	{                                                                                          \
		a, W, SOCKLEN, c, 0                                                                \
	}
#define OUT_IOV(a, c)                                                                              \
	{                                                                                          \
		a, W, IOV, c, 0                                                                    \
	}
#define IN_IOV(a, c)                                                                               \
	{                                                                                          \
		a, R, IOV, c, 0                                                                    \
	}
#define OUT_FDSET(a)                                                                               \
	{                                                                                          \
		a, W, FDSET, 0, 0                                                                  \
	}

#define DESC(replay, commands, ...)                                                                \
	{                                                                                          \
		replay, commands,                                                                  \
		{                                                                                  \
			__VA_ARGS__                                                                \
		}                                                                                  \
	}
/* The kernel's result and writes are injected at replay. */
#define INJECT(...) DESC(SYSCALL_REPLAY_INJECT, false, __VA_ARGS__)
/* The same, with more ranges decided by a command or a structure. */
#define COMMANDS(...) DESC(SYSCALL_REPLAY_INJECT, true, __VA_ARGS__)
#define RUNTIME(...) DESC(SYSCALL_REPLAY_RUNTIME, false, __VA_ARGS__)
#define MEMORY_MAP(commands) DESC(SYSCALL_REPLAY_MEMORY_MAP, commands, )
#define EXIT DESC(SYSCALL_REPLAY_EXIT, false, )
#define REFUSED DESC(SYSCALL_REPLAY_REFUSED, false, )
/* Not implemented on x86-64 (always ENOSYS): nothing to record but the result. */
#define NOSYS INJECT()

/* Kernel structure sizes on x86-64. */
enum {
	STAT = 144,
	STATFS = 120,
	UTSNAME = 390,
	SYSINFO = 112,
	TMS = 32,
	TIMEVAL = 16,
	TIMESPEC = 16,
	TIMEZONE = 8,
	RUSAGE = 144,
	RLIMIT = 16,
	POLLFD = 8,
	EPOLL_EVENT = 12,
	SIGINFO = 128,
	STACK_T = 24,
	ITIMERVAL = 32,
	ITIMERSPEC = 32,
	SIGACTION = 32,
	TIMEX = 208,
	STATX = 256,
	SIGEVENT = 64,
	MQ_ATTR = 64,
	IO_EVENT = 32,
	USER_DESC = 16,
	USTAT = 32,
	SEMBUF = 6,
};

static const struct syscall_desc table[] = {
    [SYS_read] = INJECT(OUT_RESULT(1, 2, 1)),
    [SYS_write] = INJECT(IN_ARG(1, 2, 1)),
    [SYS_open] = INJECT(),
    [SYS_close] = INJECT(),
    [SYS_stat] = INJECT(OUT(1, STAT)),
    [SYS_fstat] = INJECT(OUT(1, STAT)),
    [SYS_lstat] = INJECT(OUT(1, STAT)),
    [SYS_poll] = INJECT(OUT_ARG(0, 1, POLLFD)),
    [SYS_lseek] = INJECT(),
    [SYS_mmap] = MEMORY_MAP(true), /* a file's contents arrive: the kernel's writes */
    [SYS_mprotect] = MEMORY_MAP(false),
    [SYS_munmap] = MEMORY_MAP(false),
    [SYS_brk] = MEMORY_MAP(false),
    [SYS_rt_sigaction] = RUNTIME(IN(1, SIGACTION), OUT(2, SIGACTION)),
    [SYS_rt_sigprocmask] = RUNTIME(IN_ARG(1, 3, 1), OUT_ARG(2, 3, 1)),
    [SYS_rt_sigreturn] = RUNTIME(),
    [SYS_ioctl] = COMMANDS(),
    [SYS_pread64] = INJECT(OUT_RESULT(1, 2, 1)),
    [SYS_pwrite64] = INJECT(IN_ARG(1, 2, 1)),
    [SYS_readv] = INJECT(OUT_IOV(1, 2)),
    [SYS_writev] = INJECT(IN_IOV(1, 2)),
    [SYS_access] = INJECT(),
    [SYS_pipe] = INJECT(OUT(0, 8)),
    [SYS_select] = INJECT(OUT_FDSET(1), OUT_FDSET(2), OUT_FDSET(3), OUT(4, TIMEVAL)),
    [SYS_sched_yield] = INJECT(),
    [SYS_mremap] = MEMORY_MAP(false),
    [SYS_msync] = INJECT(),
    [SYS_mincore] = COMMANDS(),
    [SYS_madvise] = INJECT(),
    [SYS_shmget] = INJECT(),
    [SYS_shmat] = REFUSED,
    [SYS_shmctl] = COMMANDS(),
    [SYS_dup] = INJECT(),
    [SYS_dup2] = INJECT(),
    [SYS_pause] = INJECT(),
    [SYS_nanosleep] = INJECT(IN(0, TIMESPEC), OUT(1, TIMESPEC)),
    [SYS_getitimer] = INJECT(OUT(1, ITIMERVAL)),
    [SYS_alarm] = INJECT(),
    [SYS_setitimer] = INJECT(IN(1, ITIMERVAL), OUT(2, ITIMERVAL)),
    [SYS_getpid] = INJECT(),
    [SYS_sendfile] = INJECT(OUT(2, 8)),
    [SYS_socket] = INJECT(),
    [SYS_connect] = INJECT(IN_ARG(1, 2, 1)),
    [SYS_accept] = INJECT(OUT_SOCKLEN(1, 2), OUT(2, 4)),
    [SYS_sendto] = INJECT(IN_ARG(1, 2, 1), IN_ARG(4, 5, 1)),
    [SYS_recvfrom] = INJECT(OUT_RESULT(1, 2, 1), OUT_SOCKLEN(4, 5), OUT(5, 4)),
    [SYS_sendmsg] = COMMANDS(),
    [SYS_recvmsg] = COMMANDS(),
    [SYS_shutdown] = INJECT(),
    [SYS_bind] = INJECT(IN_ARG(1, 2, 1)),
    [SYS_listen] = INJECT(),
    [SYS_getsockname] = INJECT(OUT_SOCKLEN(1, 2), OUT(2, 4)),
    [SYS_getpeername] = INJECT(OUT_SOCKLEN(1, 2), OUT(2, 4)),
    [SYS_socketpair] = INJECT(OUT(3, 8)),
    [SYS_setsockopt] = INJECT(IN_ARG(3, 4, 1)),
    [SYS_getsockopt] = INJECT(OUT_SOCKLEN(3, 4), OUT(4, 4)),
    [SYS_clone] = COMMANDS(),
    [SYS_fork] = INJECT(),
    [SYS_vfork] = INJECT(),
    [SYS_execve] = INJECT(),
    [SYS_exit] = EXIT,
    [SYS_wait4] = INJECT(OUT(1, 4), OUT(3, RUSAGE)),
    [SYS_kill] = INJECT(),
    [SYS_uname] = INJECT(OUT(0, UTSNAME)),
    [SYS_semget] = INJECT(),
    [SYS_semop] = INJECT(IN_ARG(1, 2, SEMBUF)),
    [SYS_semctl] = COMMANDS(),
    [SYS_shmdt] = INJECT(),
    [SYS_msgget] = INJECT(),
    [SYS_msgsnd] = COMMANDS(),
    [SYS_msgrcv] = COMMANDS(),
    [SYS_msgctl] = COMMANDS(),
    [SYS_fcntl] = COMMANDS(),
    [SYS_flock] = INJECT(),
    [SYS_fsync] = INJECT(),
    [SYS_fdatasync] = INJECT(),
    [SYS_truncate] = INJECT(),
    [SYS_ftruncate] = INJECT(),
    [SYS_getdents] = INJECT(OUT_RESULT(1, 2, 1)),
    [SYS_getcwd] = INJECT(OUT_RESULT(0, 1, 1)),
    [SYS_chdir] = INJECT(),
    [SYS_fchdir] = INJECT(),
    [SYS_rename] = INJECT(),
    [SYS_mkdir] = INJECT(),
    [SYS_rmdir] = INJECT(),
    [SYS_creat] = INJECT(),
    [SYS_link] = INJECT(),
    [SYS_unlink] = INJECT(),
    [SYS_symlink] = INJECT(),
    [SYS_readlink] = INJECT(OUT_RESULT(1, 2, 1)),
    [SYS_chmod] = INJECT(),
    [SYS_fchmod] = INJECT(),
    [SYS_chown] = INJECT(),
    [SYS_fchown] = INJECT(),
    [SYS_lchown] = INJECT(),
    [SYS_umask] = INJECT(),
    [SYS_gettimeofday] = INJECT(OUT(0, TIMEVAL), OUT(1, TIMEZONE)),
    [SYS_getrlimit] = INJECT(OUT(1, RLIMIT)),
    [SYS_getrusage] = INJECT(OUT(1, RUSAGE)),
    [SYS_sysinfo] = INJECT(OUT(0, SYSINFO)),
    [SYS_times] = INJECT(OUT(0, TMS)),
    [SYS_ptrace] = COMMANDS(),
    [SYS_getuid] = INJECT(),
    [SYS_syslog] = COMMANDS(),
    [SYS_getgid] = INJECT(),
    [SYS_setuid] = INJECT(),
    [SYS_setgid] = INJECT(),
    [SYS_geteuid] = INJECT(),
    [SYS_getegid] = INJECT(),
    [SYS_setpgid] = INJECT(),
    [SYS_getppid] = INJECT(),
    [SYS_getpgrp] = INJECT(),
    [SYS_setsid] = INJECT(),
    [SYS_setreuid] = INJECT(),
    [SYS_setregid] = INJECT(),
    [SYS_getgroups] = INJECT(OUT_RESULT(1, 0, 4)),
    [SYS_setgroups] = INJECT(IN_ARG(1, 0, 4)),
    [SYS_setresuid] = INJECT(),
    [SYS_getresuid] = INJECT(OUT(0, 4), OUT(1, 4), OUT(2, 4)),
    [SYS_setresgid] = INJECT(),
    [SYS_getresgid] = INJECT(OUT(0, 4), OUT(1, 4), OUT(2, 4)),
    [SYS_getpgid] = INJECT(),
    [SYS_setfsuid] = INJECT(),
    [SYS_setfsgid] = INJECT(),
    [SYS_getsid] = INJECT(),
    [SYS_capget] = INJECT(OUT(0, 8), OUT(1, 24)), /* header; two data structs (v2, v3) */
    [SYS_capset] = INJECT(IN(0, 8), IN(1, 24)),
    [SYS_rt_sigpending] = INJECT(OUT_ARG(0, 1, 1)),
    [SYS_rt_sigtimedwait] = INJECT(IN_ARG(0, 3, 1), OUT(1, SIGINFO), IN(2, TIMESPEC)),
    [SYS_rt_sigqueueinfo] = INJECT(IN(2, SIGINFO)),
    [SYS_rt_sigsuspend] = INJECT(IN_ARG(0, 1, 1)),
    [SYS_sigaltstack] = RUNTIME(IN(0, STACK_T), OUT(1, STACK_T)),
    [SYS_utime] = INJECT(),
    [SYS_mknod] = INJECT(),
    [SYS_uselib] = INJECT(),
    [SYS_personality] = INJECT(),
    [SYS_ustat] = INJECT(OUT(1, USTAT)),
    [SYS_statfs] = INJECT(OUT(1, STATFS)),
    [SYS_fstatfs] = INJECT(OUT(1, STATFS)),
    [SYS_sysfs] = COMMANDS(),
    [SYS_getpriority] = INJECT(),
    [SYS_setpriority] = INJECT(),
    [SYS_sched_setparam] = INJECT(IN(1, 4)),
    [SYS_sched_getparam] = INJECT(OUT(1, 4)),
    [SYS_sched_setscheduler] = INJECT(IN(2, 4)),
    [SYS_sched_getscheduler] = INJECT(),
    [SYS_sched_get_priority_max] = INJECT(),
    [SYS_sched_get_priority_min] = INJECT(),
    [SYS_sched_rr_get_interval] = INJECT(OUT(1, TIMESPEC)),
    [SYS_mlock] = INJECT(),
    [SYS_munlock] = INJECT(),
    [SYS_mlockall] = INJECT(),
    [SYS_munlockall] = INJECT(),
    [SYS_vhangup] = INJECT(),
    [SYS_modify_ldt] = COMMANDS(),
    [SYS_pivot_root] = INJECT(),
    [SYS__sysctl] = NOSYS,
    [SYS_prctl] = COMMANDS(),
    [SYS_arch_prctl] = COMMANDS(), /* runtime or injected by its code: see below */
    [SYS_adjtimex] = INJECT(OUT(0, TIMEX)),
    [SYS_setrlimit] = INJECT(IN(1, RLIMIT)),
    [SYS_chroot] = INJECT(),
    [SYS_sync] = INJECT(),
    [SYS_acct] = INJECT(),
    [SYS_settimeofday] = INJECT(IN(0, TIMEVAL), IN(1, TIMEZONE)),
    [SYS_mount] = INJECT(),
    [SYS_umount2] = INJECT(),
    [SYS_swapon] = INJECT(),
    [SYS_swapoff] = INJECT(),
    [SYS_reboot] = INJECT(),
    [SYS_sethostname] = INJECT(IN_ARG(0, 1, 1)),
    [SYS_setdomainname] = INJECT(IN_ARG(0, 1, 1)),
    [SYS_iopl] = INJECT(),
    [SYS_ioperm] = INJECT(),
    [SYS_create_module] = NOSYS,
    [SYS_init_module] = INJECT(IN_ARG(0, 1, 1)),
    [SYS_delete_module] = INJECT(),
    [SYS_get_kernel_syms] = NOSYS,
    [SYS_query_module] = NOSYS,
    [SYS_quotactl] = COMMANDS(),
    [SYS_nfsservctl] = NOSYS,
    [SYS_getpmsg] = NOSYS,
    [SYS_putpmsg] = NOSYS,
    [SYS_afs_syscall] = NOSYS,
    [SYS_tuxcall] = NOSYS,
    [SYS_security] = NOSYS,
    [SYS_gettid] = INJECT(),
    [SYS_readahead] = INJECT(),
    [SYS_setxattr] = INJECT(IN_ARG(2, 3, 1)),
    [SYS_lsetxattr] = INJECT(IN_ARG(2, 3, 1)),
    [SYS_fsetxattr] = INJECT(IN_ARG(2, 3, 1)),
    [SYS_getxattr] = INJECT(OUT_RESULT(2, 3, 1)),
    [SYS_lgetxattr] = INJECT(OUT_RESULT(2, 3, 1)),
    [SYS_fgetxattr] = INJECT(OUT_RESULT(2, 3, 1)),
    [SYS_listxattr] = INJECT(OUT_RESULT(1, 2, 1)),
    [SYS_llistxattr] = INJECT(OUT_RESULT(1, 2, 1)),
    [SYS_flistxattr] = INJECT(OUT_RESULT(1, 2, 1)),
    [SYS_removexattr] = INJECT(),
    [SYS_lremovexattr] = INJECT(),
    [SYS_fremovexattr] = INJECT(),
    [SYS_tkill] = INJECT(),
    [SYS_time] = INJECT(OUT(0, 8)),
    [SYS_futex] = COMMANDS(),
    [SYS_sched_setaffinity] = INJECT(IN_ARG(2, 1, 1)),
    [SYS_sched_getaffinity] = INJECT(OUT_RESULT(2, 1, 1)),
    [SYS_set_thread_area] = INJECT(OUT(0, USER_DESC)),
    [SYS_io_setup] = REFUSED, /* AIO completes into app memory on its own */
    [SYS_io_destroy] = INJECT(),
    [SYS_io_getevents] = INJECT(OUT_RESULT(3, 2, IO_EVENT), IN(4, TIMESPEC)),
    [SYS_io_submit] = INJECT(),
    [SYS_io_cancel] = INJECT(OUT(2, IO_EVENT)),
    [SYS_get_thread_area] = INJECT(OUT(0, USER_DESC)),
    [SYS_lookup_dcookie] = INJECT(OUT_RESULT(1, 2, 1)),
    [SYS_epoll_create] = INJECT(),
    [SYS_epoll_ctl_old] = NOSYS,
    [SYS_epoll_wait_old] = NOSYS,
    [SYS_remap_file_pages] = REFUSED,
    [SYS_getdents64] = INJECT(OUT_RESULT(1, 2, 1)),
    [SYS_set_tid_address] = INJECT(),
    [SYS_restart_syscall] = INJECT(),
    [SYS_semtimedop] = INJECT(IN_ARG(1, 2, SEMBUF), IN(3, TIMESPEC)),
    [SYS_fadvise64] = INJECT(),
    [SYS_timer_create] = INJECT(IN(1, SIGEVENT), OUT(2, 4)),
    [SYS_timer_settime] = INJECT(IN(2, ITIMERSPEC), OUT(3, ITIMERSPEC)),
    [SYS_timer_gettime] = INJECT(OUT(1, ITIMERSPEC)),
    [SYS_timer_getoverrun] = INJECT(),
    [SYS_timer_delete] = INJECT(),
    [SYS_clock_settime] = INJECT(IN(1, TIMESPEC)),
    [SYS_clock_gettime] = INJECT(OUT(1, TIMESPEC)),
    [SYS_clock_getres] = INJECT(OUT(1, TIMESPEC)),
    [SYS_clock_nanosleep] = INJECT(IN(2, TIMESPEC), OUT(3, TIMESPEC)),
    [SYS_exit_group] = EXIT,
    [SYS_epoll_wait] = INJECT(OUT_RESULT(1, 2, EPOLL_EVENT)),
    [SYS_epoll_ctl] = INJECT(IN(3, EPOLL_EVENT)),
    [SYS_tgkill] = INJECT(),
    [SYS_utimes] = INJECT(),
    [SYS_vserver] = NOSYS,
    [SYS_mbind] = INJECT(),
    [SYS_set_mempolicy] = INJECT(),
    [SYS_get_mempolicy] = COMMANDS(OUT(0, 4)),
    [SYS_mq_open] = INJECT(IN(3, MQ_ATTR)),
    [SYS_mq_unlink] = INJECT(),
    [SYS_mq_timedsend] = INJECT(IN_ARG(1, 2, 1), IN(4, TIMESPEC)),
    [SYS_mq_timedreceive] = INJECT(OUT_RESULT(1, 2, 1), OUT(3, 4), IN(4, TIMESPEC)),
    [SYS_mq_notify] = INJECT(IN(1, SIGEVENT)),
    [SYS_mq_getsetattr] = INJECT(IN(1, MQ_ATTR), OUT(2, MQ_ATTR)),
    [SYS_kexec_load] = INJECT(),
    [SYS_waitid] = INJECT(OUT(2, SIGINFO), OUT(4, RUSAGE)),
    [SYS_add_key] = INJECT(IN_ARG(2, 3, 1)),
    [SYS_request_key] = INJECT(),
    [SYS_keyctl] = COMMANDS(),
    [SYS_ioprio_set] = INJECT(),
    [SYS_ioprio_get] = INJECT(),
    [SYS_inotify_init] = INJECT(),
    [SYS_inotify_add_watch] = INJECT(),
    [SYS_inotify_rm_watch] = INJECT(),
    [SYS_migrate_pages] = INJECT(),
    [SYS_openat] = INJECT(),
    [SYS_mkdirat] = INJECT(),
    [SYS_mknodat] = INJECT(),
    [SYS_fchownat] = INJECT(),
    [SYS_futimesat] = INJECT(),
    [SYS_newfstatat] = INJECT(OUT(2, STAT)),
    [SYS_unlinkat] = INJECT(),
    [SYS_renameat] = INJECT(),
    [SYS_linkat] = INJECT(),
    [SYS_symlinkat] = INJECT(),
    [SYS_readlinkat] = INJECT(OUT_RESULT(2, 3, 1)),
    [SYS_fchmodat] = INJECT(),
    [SYS_faccessat] = INJECT(),
    [SYS_pselect6] = INJECT(OUT_FDSET(1), OUT_FDSET(2), OUT_FDSET(3), OUT(4, TIMESPEC)),
    [SYS_ppoll] = INJECT(OUT_ARG(0, 1, POLLFD), OUT(2, TIMESPEC)),
    [SYS_unshare] = INJECT(),
    [SYS_set_robust_list] = INJECT(),
    [SYS_get_robust_list] = INJECT(OUT(1, 8), OUT(2, 8)),
    [SYS_splice] = INJECT(OUT(1, 8), OUT(3, 8)),
    [SYS_tee] = INJECT(),
    [SYS_sync_file_range] = INJECT(),
    [SYS_vmsplice] = INJECT(OUT_IOV(1, 2)), /* from a pipe it fills the iovecs */
    [SYS_move_pages] = INJECT(OUT_ARG(4, 1, 4)),
    [SYS_utimensat] = INJECT(),
    [SYS_epoll_pwait] = INJECT(OUT_RESULT(1, 2, EPOLL_EVENT)),
    [SYS_signalfd] = INJECT(),
    [SYS_timerfd_create] = INJECT(),
    [SYS_eventfd] = INJECT(),
    [SYS_fallocate] = INJECT(),
    [SYS_timerfd_settime] = INJECT(IN(2, ITIMERSPEC), OUT(3, ITIMERSPEC)),
    [SYS_timerfd_gettime] = INJECT(OUT(1, ITIMERSPEC)),
    [SYS_accept4] = INJECT(OUT_SOCKLEN(1, 2), OUT(2, 4)),
    [SYS_signalfd4] = INJECT(),
    [SYS_eventfd2] = INJECT(),
    [SYS_epoll_create1] = INJECT(),
    [SYS_dup3] = INJECT(),
    [SYS_pipe2] = INJECT(OUT(0, 8)),
    [SYS_inotify_init1] = INJECT(),
    [SYS_preadv] = INJECT(OUT_IOV(1, 2)),
    [SYS_pwritev] = INJECT(IN_IOV(1, 2)),
    [SYS_rt_tgsigqueueinfo] = INJECT(IN(3, SIGINFO)),
    [SYS_perf_event_open] = INJECT(),
    [SYS_recvmmsg] = COMMANDS(),
    [SYS_fanotify_init] = INJECT(),
    [SYS_fanotify_mark] = INJECT(),
    [SYS_prlimit64] = INJECT(IN(2, RLIMIT), OUT(3, RLIMIT)),
    [SYS_name_to_handle_at] = COMMANDS(OUT(3, 4)),
    [SYS_open_by_handle_at] = INJECT(),
    [SYS_clock_adjtime] = INJECT(OUT(1, TIMEX)),
    [SYS_syncfs] = INJECT(),
    [SYS_sendmmsg] = COMMANDS(),
    [SYS_setns] = INJECT(),
    [SYS_getcpu] = INJECT(OUT(0, 4), OUT(1, 4)),
    [SYS_process_vm_readv] = INJECT(OUT_IOV(1, 2)),
    /* It writes another process's memory; when that is this one, the remote iovecs. */
    [SYS_process_vm_writev] = INJECT(IN_IOV(1, 2), OUT_IOV(3, 4)),
    [SYS_kcmp] = INJECT(),
    [SYS_finit_module] = INJECT(),
    [SYS_sched_setattr] = INJECT(),
    [SYS_sched_getattr] = INJECT(OUT_ARG(1, 2, 1)),
    [SYS_renameat2] = INJECT(),
    [SYS_seccomp] = INJECT(),
    [SYS_getrandom] = INJECT(OUT_RESULT(0, 1, 1)),
    [SYS_memfd_create] = INJECT(),
    [SYS_kexec_file_load] = INJECT(),
    [SYS_bpf] = COMMANDS(),
    [SYS_execveat] = INJECT(),
    [SYS_userfaultfd] = INJECT(),
    [SYS_membarrier] = INJECT(),
    [SYS_mlock2] = INJECT(),
    [SYS_copy_file_range] = INJECT(OUT(1, 8), OUT(3, 8)),
    [SYS_preadv2] = INJECT(OUT_IOV(1, 2)),
    [SYS_pwritev2] = INJECT(IN_IOV(1, 2)),
    [SYS_pkey_mprotect] = INJECT(),
    [SYS_pkey_alloc] = INJECT(),
    [SYS_pkey_free] = INJECT(),
    [SYS_statx] = INJECT(OUT(4, STATX)),
    [SYS_io_pgetevents] = INJECT(OUT_RESULT(3, 2, IO_EVENT), IN(4, TIMESPEC)),
    [SYS_rseq] = RUNTIME(), /* always ENOSYS (the JIT's syscalls.c) */
    [SYS_pidfd_send_signal] = INJECT(IN(2, SIGINFO)),
    [SYS_io_uring_setup] = REFUSED, /* the kernel fills shared rings on its own */
    [SYS_io_uring_enter] = REFUSED,
    [SYS_io_uring_register] = REFUSED,
    [SYS_open_tree] = INJECT(),
    [SYS_move_mount] = INJECT(),
    [SYS_fsopen] = INJECT(),
    [SYS_fsconfig] = INJECT(),
    [SYS_fsmount] = INJECT(),
    [SYS_fspick] = INJECT(),
    [SYS_pidfd_open] = INJECT(),
    [SYS_clone3] = COMMANDS(),
    [SYS_close_range] = INJECT(),
    [SYS_openat2] = INJECT(IN_ARG(2, 3, 1)),
    [SYS_pidfd_getfd] = INJECT(),
    [SYS_faccessat2] = INJECT(),
    [SYS_process_madvise] = INJECT(),
    [SYS_epoll_pwait2] = INJECT(OUT_RESULT(1, 2, EPOLL_EVENT), IN(3, TIMESPEC)),
    [SYS_mount_setattr] = INJECT(IN_ARG(3, 4, 1)),
    [SYS_quotactl_fd] = COMMANDS(),
    [SYS_landlock_create_ruleset] = INJECT(IN_ARG(0, 1, 1)),
    [SYS_landlock_add_rule] = INJECT(),
    [SYS_landlock_restrict_self] = INJECT(),
    [SYS_memfd_secret] = INJECT(),
    [SYS_process_mrelease] = INJECT(),
    [SYS_futex_waitv] = INJECT(),
    [SYS_set_mempolicy_home_node] = INJECT(),
};

enum { TABLE_SIZE = sizeof table / sizeof table[0] };

static const struct syscall_desc *desc_of(long nr)
{
	if (nr < 0 || nr >= TABLE_SIZE || !table[nr].replay)
		return NULL;
	return &table[nr];
}

bool syscall_known(long nr)
{
	return desc_of(nr) != NULL;
}

enum syscall_replay syscall_replay_kind(long nr, const long args[6])
{
	const struct syscall_desc *d = desc_of(nr);
	if (!d)
		return 0;
	/* Only the app's %fs is the runtime's; the other codes reach the kernel. */
	if (nr == SYS_arch_prctl)
		return args[0] == 0x1002 /* ARCH_SET_FS */ || args[0] == 0x1003 /* ARCH_GET_FS */
			   ? SYSCALL_REPLAY_RUNTIME
			   : SYSCALL_REPLAY_INJECT;
	return (enum syscall_replay)d->replay;
}

/* ---- ranges ---- */

void ranges_add(struct ranges *r, uint64_t addr, uint64_t len)
{
	if (!addr || !len || r->n >= SYSCALL_MAX_RANGES)
		return;
	r->out[r->n++] = (struct mem_range){addr, len};
}

bool ranges_read(void *dst, uint64_t addr, uint64_t len)
{
	return addr && jit_read_app_memory(dst, addr, len);
}

bool ranges_call_ok(const struct ranges *r)
{
	return r->result >= 0 || r->result < -4095;
}

void ranges_add_iov(struct ranges *r, uint64_t iov, long count, long total)
{
	for (long i = 0; i < count && r->n < SYSCALL_MAX_RANGES; i++) {
		struct iovec v;
		if (!ranges_read(&v, iov + (uint64_t)i * sizeof v, sizeof v))
			return;
		uint64_t len = v.iov_len;
		if (total >= 0) {
			if (total == 0)
				return;
			if (len > (uint64_t)total)
				len = (uint64_t)total;
			total -= (long)len;
		}
		ranges_add(r, (uint64_t)v.iov_base, len);
	}
}

static void add_buffer(const struct buffer *b, const long a[6], struct ranges *r)
{
	uint64_t ptr = (uint64_t)a[b->arg];
	uint64_t count = (uint64_t)a[b->count];
	bool ok = !r->after || ranges_call_ok(r);
	if (r->after && b->dir != W)
		return;
	switch (b->kind) {
	case FIXED:
		if (ok)
			ranges_add(r, ptr, b->n);
		break;
	case ARG:
		if (ok)
			ranges_add(r, ptr, count * b->n);
		break;
	case RESULT:
		if (!r->after)
			ranges_add(r, ptr, count * b->n);
		else if (r->result > 0)
			ranges_add(r, ptr, (uint64_t)r->result * b->n);
		break;
	case SOCKLEN: {
		uint32_t len;
		if (ok && ranges_read(&len, count, sizeof len))
			ranges_add(r, ptr, len);
		break;
	}
	case IOV:
		if (!r->after)
			ranges_add_iov(r, ptr, (long)count, -1);
		else if (r->result > 0)
			ranges_add_iov(r, ptr, (long)count, r->result);
		break;
	case FDSET:
		if (ok && a[0] > 0)
			ranges_add(r, ptr, ((uint64_t)a[0] + 63) / 64 * 8);
		break;
	}
}

static int collect(long nr, const long a[6], struct ranges *r)
{
	const struct syscall_desc *d = desc_of(nr);
	if (!d)
		return -1;
	for (int i = 0; i < 4; i++)
		if (d->b[i].dir)
			add_buffer(&d->b[i], a, r);
	if (d->commands)
		syscall_command_ranges(nr, a, r);
	return r->unmodelled ? -1 : r->n;
}

int syscall_writes(long nr, const long args[6], long result, struct mem_range *out)
{
	struct ranges r = {.out = out, .after = true, .result = result};
	return collect(nr, args, &r);
}

int syscall_accesses(long nr, const long args[6], struct mem_range *out)
{
	struct ranges r = {.out = out};
	int n = collect(nr, args, &r);
	return n < 0 ? r.n : n;
}

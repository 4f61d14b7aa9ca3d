/* seccomp filters and strict mode as the kernel applies them to a program's own system
 * calls (the runtime's must stay out of their way). One scenario per run:
 *   errno        ERRNO, TRACE, USER_NOTIF, LOG and ALLOW actions, the newest of equal
 *                actions winning, errno 0 and clamping; every call the runtime makes for
 *                itself (mprotect, munmap, madvise, signal masks, ...) kills the process
 *                if it reaches the filter, while the program translates new code, takes a
 *                signal and prints
 *   trap         SIGSYS with the kernel's siginfo and registers; the handler sets the result
 *   threads      filters per thread: inherited at pthread_create, TSYNC to all threads,
 *                TSYNC refused by a thread with filters of its own (its tid, or ESRCH)
 *   exec         a fork child keeps the filters, a posix_spawn child and the program after
 *                execve too
 *   errors       what the kernel refuses (EACCES, EINVAL, EFAULT, ENOMEM), GET_ACTION_AVAIL,
 *                an interpreter workout (every ALU op, scratch memory, RET A)
 *   strict       strict mode: write and exit only
 *   kill_one_thread  KILL_THREAD on one thread of two: the other goes on
 * and ways to die: kill_process, kill_thread, div_zero (KILL_THREAD from a division by a
 * zero X), trap_blocked (SIGSYS blocked: SIGSYS kills), strict_violation (SIGKILL). */
#include <errno.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <ucontext.h>
#include <unistd.h>

extern char **environ;

#define LD_NR BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr))
#define LD_ARCH BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch))
#define RET(action) BPF_STMT(BPF_RET | BPF_K, (action))
/* With the syscall number in A: that call returns `action`, others go on. */
#define ON(nr, action) BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (nr), 0, 1), RET(action)
#define COUNT(a) (unsigned short)(sizeof(a) / sizeof((a)[0]))

static long install(struct sock_filter *f, unsigned short len, unsigned flags)
{
	struct sock_fprog prog = {len, f};
	return syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, flags, &prog);
}

static void show(const char *what, long r)
{
	if (r == -1)
		printf("%s: -1 errno %d\n", what, errno);
	else
		printf("%s: %ld\n", what, r);
	fflush(stdout);
}

static void no_new_privs(void)
{
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) {
		perror("PR_SET_NO_NEW_PRIVS");
		exit(77);
	}
}

static int compare_ints(const void *a, const void *b)
{
	return *(const int *)a - *(const int *)b;
}

static pid_t self_pid; /* getpid may be filtered */
static volatile sig_atomic_t usr1_seen;
static void on_usr1(int sig)
{
	usr1_seen = sig;
}

/* Code not run before, a signal, output: the runtime translates, masks, maps. */
static void work(void)
{
	int v[500];
	for (int i = 0; i < 500; i++)
		v[i] = (i * 7919) % 1000;
	qsort(v, 500, sizeof v[0], compare_ints);
	char text[64];
	snprintf(text, sizeof text, "%g %.3f", strtod("2.5e3", NULL), 1.0 / 3);
	syscall(SYS_kill, self_pid, SIGUSR1);
	printf("work: sorted %d..%d, %s, SIGUSR1 seen %d\n", v[0], v[499], text, (int)usr1_seen);
	fflush(stdout);
}

/* The Seccomp lines of /proc/self/status, as a sandbox checks its filter is in place. */
static void show_status_lines(void)
{
	FILE *f = fopen("/proc/self/status", "r");
	char line[256];
	while (f && fgets(line, sizeof line, f))
		if (!strncmp(line, "Seccomp", 7))
			printf("status: %s", line);
	if (f)
		fclose(f);
	fflush(stdout);
}

static void scenario_errno(void)
{
	signal(SIGUSR1, on_usr1);
	no_new_privs();
	struct sock_filter first[] = {
	    LD_ARCH,
	    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, 1, 0),
	    RET(SECCOMP_RET_KILL_PROCESS),
	    LD_NR,
	    ON(SYS_getppid, SECCOMP_RET_ERRNO | EPERM),
	    ON(SYS_getgid, SECCOMP_RET_TRACE | 5),
	    ON(SYS_getegid, SECCOMP_RET_USER_NOTIF),
	    ON(SYS_getuid, SECCOMP_RET_LOG),
	    ON(SYS_getsid, SECCOMP_RET_ERRNO | 0),
	    /* the runtime's own calls; the program makes none of them from here on */
	    ON(SYS_mprotect, SECCOMP_RET_KILL_PROCESS),
	    ON(SYS_munmap, SECCOMP_RET_KILL_PROCESS),
	    ON(SYS_madvise, SECCOMP_RET_KILL_PROCESS),
	    ON(SYS_rt_sigprocmask, SECCOMP_RET_KILL_PROCESS),
	    ON(SYS_sigaltstack, SECCOMP_RET_KILL_PROCESS),
	    ON(SYS_tgkill, SECCOMP_RET_KILL_PROCESS),
	    ON(SYS_gettid, SECCOMP_RET_KILL_PROCESS),
	    ON(SYS_futex, SECCOMP_RET_KILL_PROCESS),
	    ON(SYS_memfd_create, SECCOMP_RET_KILL_PROCESS),
	    RET(SECCOMP_RET_ALLOW),
	};
	show("install first", install(first, COUNT(first), 0));
	struct sock_filter second[] = {
	    LD_NR,
	    ON(SYS_getppid, SECCOMP_RET_ERRNO | EACCES),
	    ON(SYS_getpgrp, SECCOMP_RET_ERRNO | 99999),
	    RET(SECCOMP_RET_ALLOW),
	};
	show("install second", install(second, COUNT(second), SECCOMP_FILTER_FLAG_LOG));
	struct sock_filter allow_all[] = {RET(SECCOMP_RET_ALLOW)};
	show("install third", install(allow_all, COUNT(allow_all), 0));
	show("PR_GET_SECCOMP", prctl(PR_GET_SECCOMP, 0, 0, 0, 0));
	show_status_lines();
	show("getppid", syscall(SYS_getppid));
	show("getgid (TRACE, no tracer)", syscall(SYS_getgid));
	show("getegid (USER_NOTIF, no listener)", syscall(SYS_getegid));
	show("getuid (LOG) equals the real one", syscall(SYS_getuid) == (long)getuid());
	show("getsid (ERRNO 0)", syscall(SYS_getsid, 0));
	show("getpgrp (ERRNO clamped)", syscall(SYS_getpgrp));
	work();
}

static volatile long trap_code = -1, trap_errno, trap_nr, trap_arch_ok, trap_addr_ok, trap_rax;
static void on_sigsys(int sig, siginfo_t *si, void *ctx)
{
	(void)sig;
	ucontext_t *uc = ctx;
	trap_code = si->si_code;
	trap_errno = si->si_errno;
	trap_nr = si->si_syscall;
	trap_arch_ok = si->si_arch == AUDIT_ARCH_X86_64;
	trap_addr_ok = (greg_t)si->si_call_addr == uc->uc_mcontext.gregs[REG_RIP];
	trap_rax = uc->uc_mcontext.gregs[REG_RAX];
	uc->uc_mcontext.gregs[REG_RAX] = 4242;
}

static void scenario_trap(void)
{
	signal(SIGUSR1, on_usr1);
	struct sigaction sa = {.sa_sigaction = on_sigsys, .sa_flags = SA_SIGINFO};
	sigaction(SIGSYS, &sa, NULL);
	no_new_privs();
	struct sock_filter f[] = {
	    LD_NR,
	    ON(SYS_getpid, SECCOMP_RET_TRAP | 0x42),
	    ON(SYS_getppid, SECCOMP_RET_ERRNO | EPERM),
	    RET(SECCOMP_RET_ALLOW),
	};
	show("install", install(f, COUNT(f), 0));
	show("getpid (the handler's 4242)", syscall(SYS_getpid));
	printf("SIGSYS: code %ld errno 0x%lx syscall %ld arch ok %ld call addr ok %ld rax %ld\n",
	       trap_code, trap_errno, trap_nr, trap_arch_ok, trap_addr_ok, trap_rax);
	/* the most restrictive action wins: a newer ERRNO does not override TRAP */
	struct sock_filter errno_filter[] = {LD_NR, ON(SYS_getpid, SECCOMP_RET_ERRNO | EPERM),
					     RET(SECCOMP_RET_ALLOW)};
	show("install ERRNO on top", install(errno_filter, COUNT(errno_filter), 0));
	trap_code = -1;
	show("getpid again", syscall(SYS_getpid));
	printf("SIGSYS again: code %ld\n", trap_code);
	work();
}

/* A thread that makes the calls it is told to over a pipe and answers over another. */
struct helper {
	pthread_t thread;
	int cmd[2], reply[2];
	long tid;
	struct sock_filter *own; /* a filter it installs first (D) */
	unsigned short own_len;
};

static void *helper_main(void *arg)
{
	struct helper *h = arg;
	h->tid = syscall(SYS_gettid);
	if (h->own)
		install(h->own, h->own_len, 0);
	for (char c; read(h->cmd[0], &c, 1) == 1 && c != 'q';) {
		long r = syscall(c == 'p' ? SYS_getppid : SYS_getuid);
		long answer = r == -1 ? -errno : (r > 0 ? 1 : 0);
		if (write(h->reply[1], &answer, sizeof answer) != sizeof answer)
			break;
	}
	return NULL;
}

static void helper_start(struct helper *h)
{
	if (pipe(h->cmd) || pipe(h->reply) || pthread_create(&h->thread, NULL, helper_main, h))
		exit(1);
}

/* What the helper's call returned: 1 success, else -errno. */
static long helper_call(struct helper *h, char call)
{
	long answer = 0;
	if (write(h->cmd[1], &call, 1) != 1 ||
	    read(h->reply[0], &answer, sizeof answer) != sizeof answer)
		exit(1);
	return answer;
}

static void helper_stop(struct helper *h)
{
	if (write(h->cmd[1], "q", 1) != 1)
		exit(1);
	pthread_join(h->thread, NULL);
}

static void scenario_threads(void)
{
	no_new_privs();
	struct helper b = {0}, c = {0}, d = {0};
	helper_start(&b);
	struct sock_filter first[] = {LD_NR, ON(SYS_getppid, SECCOMP_RET_ERRNO | EPERM),
				      RET(SECCOMP_RET_ALLOW)};
	show("main installs (no TSYNC)", install(first, COUNT(first), 0));
	show("main getppid", syscall(SYS_getppid));
	printf("B (older) getppid %ld\n", helper_call(&b, 'p'));
	helper_start(&c);
	printf("C (newer) getppid %ld\n", helper_call(&c, 'p'));
	struct sock_filter second[] = {LD_NR, ON(SYS_getuid, SECCOMP_RET_ERRNO | EACCES),
				       RET(SECCOMP_RET_ALLOW)};
	show("main installs with TSYNC", install(second, COUNT(second), SECCOMP_FILTER_FLAG_TSYNC));
	printf("B getuid %ld getppid %ld, C getuid %ld\n", helper_call(&b, 'u'),
	       helper_call(&b, 'p'), helper_call(&c, 'u'));
	struct sock_filter own[] = {LD_NR, ON(SYS_getgid, SECCOMP_RET_ERRNO | EIO),
				    RET(SECCOMP_RET_ALLOW)};
	d.own = own;
	d.own_len = COUNT(own);
	helper_start(&d);
	printf("D (own filter) getuid %ld\n", helper_call(&d, 'u'));
	long r = install(first, COUNT(first), SECCOMP_FILTER_FLAG_TSYNC);
	printf("TSYNC refused, naming D: %d\n", r == d.tid);
	show("TSYNC with TSYNC_ESRCH",
	     install(first, COUNT(first),
		     SECCOMP_FILTER_FLAG_TSYNC | SECCOMP_FILTER_FLAG_TSYNC_ESRCH));
	helper_stop(&b);
	helper_stop(&c);
	helper_stop(&d);
}

static void exec_child(void)
{
	signal(SIGUSR1, on_usr1);
	show("after exec: getppid", syscall(SYS_getppid));
	show("after exec: PR_GET_SECCOMP", prctl(PR_GET_SECCOMP, 0, 0, 0, 0));
	show_status_lines();
	work();
}

static void scenario_exec(char *self)
{
	signal(SIGUSR1, on_usr1);
	no_new_privs();
	struct sock_filter f[] = {LD_NR, ON(SYS_getppid, SECCOMP_RET_ERRNO | EPERM),
				  RET(SECCOMP_RET_ALLOW)};
	show("install", install(f, COUNT(f), 0));
	pid_t child = fork();
	if (child == 0) /* its output would not be in a replay: it answers by its status */
		_exit(syscall(SYS_getppid) == -1 && errno == EPERM ? 10 : 11);
	int status;
	waitpid(child, &status, 0);
	printf("fork child exit %d (10: its getppid failed with EPERM)\n", WEXITSTATUS(status));
	fflush(stdout);
	/* posix_spawn's child (a vfork child) keeps them too, across its exec. */
	char *args[] = {self, "exec_probe", NULL};
	pid_t spawned;
	if (posix_spawn(&spawned, "/proc/self/exe", NULL, NULL, args, environ) == 0) {
		waitpid(spawned, &status, 0);
		printf("spawned child exit %d (10: its getppid failed with EPERM)\n",
		       WEXITSTATUS(status));
	}
	execl("/proc/self/exe", self, "exec_child", (char *)NULL);
	perror("execl");
	exit(1);
}

static void scenario_errors(void)
{
	struct sock_filter allow[] = {RET(SECCOMP_RET_ALLOW)};
	show("PR_GET_SECCOMP first", prctl(PR_GET_SECCOMP, 0, 0, 0, 0));
	/* EACCES without no_new_privs, unless CAP_SYS_ADMIN: compared with native either way */
	show("without no_new_privs", install(allow, 1, 0));
	no_new_privs();
	struct {
		const char *what;
		struct sock_filter f[3];
		unsigned short len;
	} bad[] = {
	    {"no instruction", {RET(0)}, 0},
	    {"jump beyond the end", {BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 0, 5, 0), RET(0)}, 2},
	    {"load beyond seccomp_data", {BPF_STMT(BPF_LD | BPF_W | BPF_ABS, 64), RET(0)}, 2},
	    {"misaligned load", {BPF_STMT(BPF_LD | BPF_W | BPF_ABS, 2), RET(0)}, 2},
	    {"half-word load", {BPF_STMT(BPF_LD | BPF_H | BPF_ABS, 0), RET(0)}, 2},
	    {"no return at the end", {LD_NR}, 1},
	    {"scratch read unwritten", {BPF_STMT(BPF_LD | BPF_MEM, 3), RET(0)}, 2},
	    {"scratch written on one path only",
	     {BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 0, 0, 1), BPF_STMT(BPF_ST, 1),
	      BPF_STMT(BPF_LDX | BPF_MEM, 1)},
	     3},
	    {"modulo", {BPF_STMT(BPF_ALU | BPF_MOD | BPF_K, 3), RET(0)}, 2},
	    {"division by a zero constant", {BPF_STMT(BPF_ALU | BPF_DIV | BPF_K, 0), RET(0)}, 2},
	    {"shift by 32", {BPF_STMT(BPF_ALU | BPF_LSH | BPF_K, 32), RET(0)}, 2},
	    {"return X", {BPF_STMT(BPF_RET | BPF_X, 0)}, 1},
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
		show(bad[i].what, install(bad[i].f, bad[i].len, 0));
	show("4097 instructions", install(allow, 4097, 0));
	show("unknown flag", install(allow, 1, 1u << 12));
	show("TSYNC with NEW_LISTENER",
	     install(allow, 1, SECCOMP_FILTER_FLAG_TSYNC | SECCOMP_FILTER_FLAG_NEW_LISTENER));
	show("WAIT_KILLABLE_RECV alone", install(allow, 1, 1u << 5));
	show("bad program pointer", syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, (void *)8));
	struct sock_fprog wild = {1, (struct sock_filter *)8};
	show("bad filter pointer", syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &wild));
	show("unknown operation", syscall(SYS_seccomp, 99, 0, NULL));
	show("strict with flags", syscall(SYS_seccomp, SECCOMP_SET_MODE_STRICT, 1, NULL));
	show("PR_SET_SECCOMP mode 7", prctl(PR_SET_SECCOMP, 7, 0, 0, 0));
	unsigned action = SECCOMP_RET_ERRNO;
	show("action ERRNO available", syscall(SYS_seccomp, SECCOMP_GET_ACTION_AVAIL, 0, &action));
	action = 0x12340000;
	show("action 0x1234 available", syscall(SYS_seccomp, SECCOMP_GET_ACTION_AVAIL, 0, &action));
	/* Every ALU operation and scratch memory: getppid's errno is computed from its number. */
	struct sock_filter workout[] = {
	    LD_NR,
	    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_getppid, 0, 20),
	    BPF_STMT(BPF_ST, 0),
	    BPF_STMT(BPF_ALU | BPF_MUL | BPF_K, 3),
	    BPF_STMT(BPF_ALU | BPF_ADD | BPF_K, 7),
	    BPF_STMT(BPF_ALU | BPF_XOR | BPF_K, 0x55),
	    BPF_STMT(BPF_ALU | BPF_LSH | BPF_K, 2),
	    BPF_STMT(BPF_ALU | BPF_RSH | BPF_K, 1),
	    BPF_STMT(BPF_ALU | BPF_AND | BPF_K, 0x3ff),
	    BPF_STMT(BPF_ALU | BPF_OR | BPF_K, 0x400),
	    BPF_STMT(BPF_MISC | BPF_TAX, 0),
	    BPF_STMT(BPF_LD | BPF_MEM, 0),
	    BPF_STMT(BPF_ALU | BPF_SUB | BPF_X, 0),
	    BPF_STMT(BPF_ALU | BPF_NEG, 0),
	    BPF_STMT(BPF_ALU | BPF_DIV | BPF_K, 3),
	    BPF_STMT(BPF_STX, 5),
	    BPF_STMT(BPF_LDX | BPF_MEM, 5),
	    BPF_STMT(BPF_MISC | BPF_TXA, 0),
	    BPF_JUMP(BPF_JMP | BPF_JGT | BPF_K, 4095, 0, 1),
	    BPF_STMT(BPF_ALU | BPF_AND | BPF_K, 0xfff),
	    BPF_STMT(BPF_ALU | BPF_OR | BPF_K, SECCOMP_RET_ERRNO),
	    BPF_STMT(BPF_RET | BPF_A, 0),
	    BPF_STMT(BPF_LD | BPF_W | BPF_LEN, 0),
	    BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, 64, 0, 2),
	    BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, 0x40, 0, 1),
	    RET(SECCOMP_RET_ALLOW),
	    RET(SECCOMP_RET_KILL_PROCESS),
	};
	show("install workout", install(workout, COUNT(workout), 0));
	show("getppid (computed errno)", syscall(SYS_getppid));
	show("strict after a filter", syscall(SYS_seccomp, SECCOMP_SET_MODE_STRICT, 0, NULL));
	/* The kernel's limit over a chain: 32768 instructions, 4 more per older filter. */
	static struct sock_filter big[4096];
	for (int i = 0; i < 4095; i++)
		big[i] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_IMM, (unsigned)i);
	big[4095] = (struct sock_filter)RET(SECCOMP_RET_ALLOW);
	int n = 0;
	long r;
	while ((r = install(big, 4096, 0)) == 0)
		n++;
	printf("4096-instruction filters taken: %d, then -1 errno %d\n", n, errno);
	(void)r;
	show("getpid still runs", syscall(SYS_getpid) == getpid());
}

static void scenario_strict(void)
{
	static const char msg[] = "strict mode: write works\n";
	fflush(stdout);
	if (prctl(PR_SET_SECCOMP, SECCOMP_MODE_STRICT, 0, 0, 0) != 0)
		exit(1);
	if (write(1, msg, sizeof msg - 1) != sizeof msg - 1)
		syscall(SYS_exit, 1);
	syscall(SYS_exit, 3);
}

static void *doomed_thread(void *arg)
{
	(void)arg;
	syscall(SYS_getppid); /* KILL_THREAD */
	printf("the doomed thread lives on\n");
	return NULL;
}

static void scenario_kill_one_thread(void)
{
	no_new_privs();
	struct sock_filter f[] = {LD_NR, ON(SYS_getppid, SECCOMP_RET_KILL_THREAD),
				  RET(SECCOMP_RET_ALLOW)};
	show("install", install(f, COUNT(f), 0));
	pthread_t t;
	pthread_create(&t, NULL, doomed_thread, NULL);
	sleep(1);
	printf("the main thread goes on\n");
	fflush(stdout);
	exit(0);
}

/* The ways to die: the filter takes getppid. */
static void die(const char *how)
{
	no_new_privs();
	uint32_t action = SECCOMP_RET_KILL_PROCESS;
	if (!strcmp(how, "kill_thread"))
		action = SECCOMP_RET_KILL_THREAD;
	if (!strcmp(how, "trap_blocked")) {
		action = SECCOMP_RET_TRAP;
		sigset_t set;
		sigemptyset(&set);
		sigaddset(&set, SIGSYS);
		sigprocmask(SIG_BLOCK, &set, NULL);
	}
	struct sock_filter f[] = {LD_NR, ON(SYS_getppid, action), RET(SECCOMP_RET_ALLOW)};
	struct sock_filter div_zero[] = {
	    LD_NR,
	    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_getppid, 0, 3),
	    BPF_STMT(BPF_LDX | BPF_IMM, 0),
	    BPF_STMT(BPF_ALU | BPF_DIV | BPF_X, 0),
	    RET(SECCOMP_RET_ERRNO | EPERM),
	    RET(SECCOMP_RET_ALLOW),
	};
	if (!strcmp(how, "div_zero"))
		show("install", install(div_zero, COUNT(div_zero), 0));
	else
		show("install", install(f, COUNT(f), 0));
	syscall(SYS_getppid);
	printf("still alive\n");
}

int main(int argc, char **argv)
{
	const char *what = argc > 1 ? argv[1] : "";
	self_pid = getpid();
	if (!strcmp(what, "errno"))
		scenario_errno();
	else if (!strcmp(what, "trap"))
		scenario_trap();
	else if (!strcmp(what, "threads"))
		scenario_threads();
	else if (!strcmp(what, "exec"))
		scenario_exec(argv[0]);
	else if (!strcmp(what, "exec_child"))
		exec_child();
	else if (!strcmp(what, "exec_probe"))
		return syscall(SYS_getppid) == -1 && errno == EPERM ? 10 : 11;
	else if (!strcmp(what, "errors"))
		scenario_errors();
	else if (!strcmp(what, "strict"))
		scenario_strict();
	else if (!strcmp(what, "kill_one_thread"))
		scenario_kill_one_thread();
	else if (!strcmp(what, "strict_violation")) {
		fflush(stdout);
		prctl(PR_SET_SECCOMP, SECCOMP_MODE_STRICT, 0, 0, 0);
		syscall(SYS_getpid);
	} else if (!strcmp(what, "kill_process") || !strcmp(what, "kill_thread") ||
		   !strcmp(what, "div_zero") || !strcmp(what, "trap_blocked"))
		die(what);
	else {
		fprintf(stderr, "usage: seccomp_filters SCENARIO\n");
		return 2;
	}
	return 0;
}

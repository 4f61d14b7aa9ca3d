/* Signal behaviours a program relies on, scenario by argv[1]; prints what it observed, the
 * same natively and under the logger. */
#include <errno.h>
#include <sched.h>
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

static sigjmp_buf jump;
static volatile sig_atomic_t hits;
static volatile uintptr_t fault_addr;

static void on_segv(int sig, siginfo_t *info, void *ctx)
{
	(void)sig;
	(void)ctx;
	fault_addr = (uintptr_t)info->si_addr;
	siglongjmp(jump, 1);
}

static void count(int sig)
{
	(void)sig;
	hits++;
}

static void set(int sig, void (*fn)(int), int flags)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = fn;
	sa.sa_flags = flags;
	sigaction(sig, &sa, NULL);
}

static void segv_recovered(void)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_sigaction = on_segv;
	sa.sa_flags = SA_SIGINFO;
	sigaction(SIGSEGV, &sa, NULL);
	for (volatile uintptr_t addr = 0x1000; addr <= 0x3000; addr += 0x1000) {
		if (!sigsetjmp(jump, 1))
			*(volatile int *)addr = 1;
		printf("recovered from a fault at 0x%lx\n", (unsigned long)fault_addr);
	}
}

static volatile int limit = 1 << 30; /* never reached: the stack overflows first */

static int depth(int n)
{
	volatile char pad[1024];
	pad[0] = (char)n;
	return n < limit ? depth(n + 1) + pad[0] : 0;
}

static void stack_overflow(void)
{
	static char alt[64 * 1024];
	stack_t ss = {.ss_sp = alt, .ss_size = sizeof alt};
	sigaltstack(&ss, NULL);
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_sigaction = on_segv;
	sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
	sigaction(SIGSEGV, &sa, NULL);
	if (!sigsetjmp(jump, 1))
		depth(0);
	printf("stack overflow caught on the alternate stack\n");
}

/* The 20th tick stops the timer itself: a tick between the loop's end and a disarm in
 * the loop's thread would make the count racy. */
static void count_to_20(int sig)
{
	(void)sig;
	if (hits < 20 && ++hits == 20) {
		struct itimerval off = {{0, 0}, {0, 0}};
		setitimer(ITIMER_REAL, &off, NULL);
	}
}

static void timer_loop(void)
{
	set(SIGALRM, count_to_20, 0);
	struct itimerval it = {{0, 2000}, {0, 2000}};
	setitimer(ITIMER_REAL, &it, NULL);
	volatile unsigned long spins = 0;
	while (hits < 20)
		spins++;
	printf("the interval timer interrupted the loop %d times\n", (int)hits);
}

/* A read blocked on a pipe while a timer fires: SA_RESTART resumes it, without it EINTR. */
static void restart(int flags)
{
	set(SIGALRM, count, flags);
	int p[2];
	if (pipe(p))
		return;
	pid_t child = fork();
	if (child == 0) {
		usleep(150000);
		if (write(p[1], "data", 4) != 4)
			_exit(1);
		_exit(0);
	}
	struct itimerval it = {{0, 0}, {0, 30000}};
	setitimer(ITIMER_REAL, &it, NULL);
	char buf[8];
	ssize_t n = read(p[0], buf, sizeof buf);
	printf("read returned %zd (%s) after %d signal(s)\n", n, n < 0 ? strerror(errno) : "data",
	       (int)hits);
	waitpid(child, NULL, 0);
}

static void resethand_nodefer(void)
{
	set(SIGUSR1, count, SA_RESETHAND);
	raise(SIGUSR1);
	struct sigaction now;
	sigaction(SIGUSR1, NULL, &now);
	printf("after SA_RESETHAND the action is %s, hits %d\n",
	       now.sa_handler == SIG_DFL ? "SIG_DFL" : "still the handler", (int)hits);
}

static void suspend(void)
{
	set(SIGUSR2, count, 0);
	sigset_t block, old;
	sigemptyset(&block);
	sigaddset(&block, SIGUSR2);
	sigprocmask(SIG_BLOCK, &block, &old);
	raise(SIGUSR2); /* pending while blocked */
	printf("blocked: hits %d\n", (int)hits);
	sigsuspend(&old);
	printf("after sigsuspend: hits %d, errno %s\n", (int)hits, strerror(errno));
}

/* A thread starts with the mask its parent had at the clone, even when the parent changes
 * its own right after (as pthread_create does) before the child runs. */
static volatile uint64_t child_mask;
static volatile int child_done;
static int report_mask(void *arg)
{
	(void)arg;
	uint64_t mask = 0;
	syscall(SYS_rt_sigprocmask, SIG_BLOCK, NULL, &mask, sizeof mask);
	child_mask = mask;
	__atomic_store_n(&child_done, 1, __ATOMIC_RELEASE);
	syscall(SYS_exit, 0); /* the thread only: it shares everything */
	return 0;
}
static void clone_mask(void)
{
	static char stacks[20][16384] __attribute__((aligned(16)));
	int inherited = 0;
	for (int i = 0; i < 20; i++) {
		sigset_t all, old;
		sigfillset(&all);
		sigprocmask(SIG_BLOCK, &all, &old);
		child_done = 0;
		clone(report_mask, stacks[i] + sizeof stacks[i],
		      CLONE_VM | CLONE_FS | CLONE_FILES | CLONE_SIGHAND | CLONE_THREAD |
			  CLONE_SYSVSEM,
		      NULL);
		sigprocmask(SIG_SETMASK, &old, NULL);
		while (!__atomic_load_n(&child_done, __ATOMIC_ACQUIRE))
			sched_yield();
		inherited += (child_mask & (1ull << (SIGUSR1 - 1))) != 0;
	}
	printf("threads that started with the parent's mask at the clone: %d of 20\n", inherited);
}

int main(int argc, char **argv)
{
	const char *what = argc > 1 ? argv[1] : "";
	if (!strcmp(what, "segv"))
		segv_recovered();
	else if (!strcmp(what, "overflow"))
		stack_overflow();
	else if (!strcmp(what, "timer"))
		timer_loop();
	else if (!strcmp(what, "restart"))
		restart(SA_RESTART);
	else if (!strcmp(what, "eintr"))
		restart(0);
	else if (!strcmp(what, "resethand"))
		resethand_nodefer();
	else if (!strcmp(what, "suspend"))
		suspend();
	else if (!strcmp(what, "clone_mask"))
		clone_mask();
	else
		return 2;
	return 0;
}

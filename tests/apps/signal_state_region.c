/* Signal state set up before an SSC-marked region and used inside it, for replaying a
 * region that starts mid-run: a SIGSEGV handler on an alternate stack that recovers with
 * siglongjmp, a SIGUSR1 handler raised in the region, a blocked SIGUSR2. The region reads
 * the state back (old action, mask, stack) and writes what it saw with write(2), so that a
 * replay echoes the same lines. */
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "ssc_mark.h"

static sigjmp_buf env;
static char alt[64 * 1024];
static volatile void *fault_addr;
static volatile int on_alt_stack, usr1_hits;
static volatile int *volatile unmapped = (volatile int *)16;

static void on_segv(int sig, siginfo_t *info, void *ctx)
{
	(void)sig;
	(void)ctx;
	char here;
	fault_addr = info->si_addr;
	on_alt_stack = &here >= alt && &here < alt + sizeof alt;
	siglongjmp(env, 1);
}

static void on_usr1(int sig)
{
	(void)sig;
	usr1_hits++;
}

static void say(const char *fmt, long value)
{
	char line[128];
	int n = snprintf(line, sizeof line, fmt, value);
	if (write(1, line, (size_t)n) != n)
		_exit(3);
}

int main(void)
{
	stack_t ss = {.ss_sp = alt, .ss_size = sizeof alt};
	sigaltstack(&ss, NULL);
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_sigaction = on_segv;
	sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
	sigaction(SIGSEGV, &sa, NULL);
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_usr1;
	sigaction(SIGUSR1, &sa, NULL);
	sigset_t block;
	sigemptyset(&block);
	sigaddset(&block, SIGUSR2);
	sigprocmask(SIG_BLOCK, &block, NULL);

	SSC_MARK(0x11223344);
	if (!sigsetjmp(env, 1))
		*unmapped = 1;
	say("recovered from SIGSEGV at address %ld", (long)fault_addr);
	say(", on the alternate stack: %ld\n", on_alt_stack);
	struct sigaction old;
	sigaction(SIGUSR1, NULL, &old);
	say("the SIGUSR1 action is the handler: %ld\n", old.sa_handler == on_usr1);
	sigset_t now;
	sigprocmask(SIG_BLOCK, NULL, &now);
	say("SIGUSR2 blocked: %ld\n", sigismember(&now, SIGUSR2));
	raise(SIGUSR1);
	say("SIGUSR1 handled %ld times\n", usr1_hits);
	stack_t cur;
	sigaltstack(NULL, &cur);
	say("alternate stack of %ld bytes\n", (long)cur.ss_size);
	SSC_MARK(0x55667788);
	return 0;
}

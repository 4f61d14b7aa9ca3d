/* Fault signals sent by a process rather than raised by a fault (raise, kill, sigqueue,
 * pthread_kill): handled by the app's handler, kept pending while blocked, ignored under
 * SIG_IGN, and, last, killing the process by their default action (argv[1] names which). */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static volatile int caught[65];
static volatile int code[65];

static void on_signal(int sig, siginfo_t *info, void *ctx)
{
	(void)ctx;
	caught[sig]++;
	code[sig] = info->si_code;
}

int main(int argc, char **argv)
{
	const int sigs[] = {SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGTRAP};
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_sigaction = on_signal;
	sa.sa_flags = SA_SIGINFO;
	for (int i = 0; i < 5; i++)
		sigaction(sigs[i], &sa, NULL);
	raise(SIGSEGV);
	kill(getpid(), SIGBUS);
	sigqueue(getpid(), SIGILL, (union sigval){.sival_int = 7});
	pthread_kill(pthread_self(), SIGFPE);
	sigset_t block, old;
	sigemptyset(&block);
	sigaddset(&block, SIGTRAP);
	sigprocmask(SIG_BLOCK, &block, &old);
	raise(SIGTRAP);
	printf("SIGTRAP blocked: caught %d times\n", caught[SIGTRAP]);
	sigprocmask(SIG_SETMASK, &old, NULL);
	for (int i = 0; i < 5; i++)
		printf("%s: caught %d, si_code %d\n", strsignal(sigs[i]), caught[sigs[i]],
		       code[sigs[i]]);
	signal(SIGBUS, SIG_IGN);
	kill(getpid(), SIGBUS);
	printf("SIGBUS ignored\n");
	fflush(stdout);
	signal(SIGSEGV, SIG_DFL);
	if (argc > 1 && !strcmp(argv[1], "die"))
		kill(getpid(), SIGSEGV);
	return 0;
}

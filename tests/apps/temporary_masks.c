/* Signal masks that are not the thread's own for a while: the mask an exec'd program starts
 * with (the app blocked fault signals too), and the temporary masks of ppoll, pselect and
 * epoll_pwait, under which a signal blocked otherwise reaches its handler during the call.
 * A child sends the signal while the parent waits. */
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/select.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static volatile int handled;

static void on_usr1(int sig)
{
	(void)sig;
	handled++;
}

static void print_mask(const char *who)
{
	sigset_t m;
	sigprocmask(SIG_SETMASK, NULL, &m);
	printf("%s blocks:", who);
	for (int s = 1; s < 65; s++)
		if (sigismember(&m, s))
			printf(" %d", s);
	printf("\n");
}

/* Waits by `how` with SIGUSR1 blocked except in the call's temporary mask. */
static void wait_for_signal(const char *how)
{
	sigset_t empty;
	sigemptyset(&empty);
	pid_t child = fork();
	if (child == 0) {
		usleep(100000);
		kill(getppid(), SIGUSR1);
		_exit(0);
	}
	struct timespec ts = {5, 0};
	int r = -1;
	handled = 0;
	if (!strcmp(how, "ppoll")) {
		r = ppoll(NULL, 0, &ts, &empty);
	} else if (!strcmp(how, "pselect")) {
		r = pselect(0, NULL, NULL, NULL, &ts, &empty);
	} else {
		int ep = epoll_create1(0);
		struct epoll_event ev;
		r = epoll_pwait(ep, &ev, 1, 5000, &empty);
		close(ep);
	}
	waitpid(child, NULL, 0);
	printf("%s: %d, handled %d, SIGUSR1 still blocked: %d\n", how, r, handled, ({
		       sigset_t m;
		       sigprocmask(SIG_SETMASK, NULL, &m);
		       sigismember(&m, SIGUSR1);
	       }));
}

int main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "exec'd")) {
		print_mask("the exec'd program");
		return 0;
	}
	signal(SIGUSR1, on_usr1);
	sigset_t usr1;
	sigemptyset(&usr1);
	sigaddset(&usr1, SIGUSR1);
	sigprocmask(SIG_BLOCK, &usr1, NULL);
	wait_for_signal("ppoll");
	wait_for_signal("pselect");
	wait_for_signal("epoll_pwait");
	sigset_t faults;
	sigemptyset(&faults);
	int list[] = {SIGILL, SIGTRAP, SIGBUS, SIGFPE, SIGSEGV, SIGUSR2, SIGRTMIN + 3};
	for (unsigned i = 0; i < sizeof list / sizeof list[0]; i++)
		sigaddset(&faults, list[i]);
	sigprocmask(SIG_BLOCK, &faults, NULL);
	print_mask("before exec");
	fflush(stdout);
	execl("/proc/self/exe", argv[0], "exec'd", NULL);
	return 1;
}

/* Processes and signals between threads, by scenario: system(), popen(), posix_spawn(),
 * pthread_kill to a chosen thread, signalfd, sigtimedwait. */
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

static volatile pthread_t target;
static volatile int got_on_target;

static volatile int got_usr1;
static volatile int written_by_child;

static void on_usr1(int sig)
{
	(void)sig;
	got_on_target = pthread_equal(pthread_self(), target);
	got_usr1 = 1;
}

static void *sleeper(void *arg)
{
	(void)arg;
	target = pthread_self();
	while (!got_on_target)
		usleep(1000);
	return NULL;
}

static void thread_kill(void)
{
	signal(SIGUSR1, on_usr1);
	pthread_t t;
	pthread_create(&t, NULL, sleeper, NULL);
	while (!target)
		usleep(1000);
	pthread_kill(t, SIGUSR1);
	pthread_join(t, NULL);
	printf("the handler ran on the chosen thread: %d\n", got_on_target);
}

static void signal_fd(void)
{
	sigset_t set;
	sigemptyset(&set);
	sigaddset(&set, SIGUSR2);
	sigprocmask(SIG_BLOCK, &set, NULL);
	int fd = signalfd(-1, &set, 0);
	raise(SIGUSR2);
	struct signalfd_siginfo si;
	ssize_t n = read(fd, &si, sizeof si);
	printf("signalfd read %zd bytes, signal %u\n", n, si.ssi_signo);
	raise(SIGUSR2);
	siginfo_t info;
	int sig = sigtimedwait(&set, &info, &(struct timespec){1, 0});
	printf("sigtimedwait got %d (%d)\n", sig, info.si_signo);
}

static void spawning(void)
{
	fflush(stdout);
	int status = system("echo from system; exit 3");
	printf("system: exit %d\n", WEXITSTATUS(status));
	FILE *p = popen("echo from popen", "r");
	char line[64] = {0};
	if (p && fgets(line, sizeof line, p))
		printf("popen read: %s", line);
	printf("pclose: %d\n", p ? WEXITSTATUS(pclose(p)) : -1);
	pid_t pid;
	char *argv[] = {"sh", "-c", "echo from posix_spawn; exit 5", NULL};
	fflush(stdout);
	if (posix_spawn(&pid, "/bin/sh", NULL, NULL, argv, environ) == 0) {
		waitpid(pid, &status, 0);
		printf("posix_spawn: exit %d\n", WEXITSTATUS(status));
	}
	/* The child reports exec errors through memory it shares with the parent
	 * (CLONE_VM|CLONE_VFORK); the parent's handlers survive the child resetting its own. */
	signal(SIGUSR1, on_usr1);
	char *none[] = {"none", NULL};
	int e = posix_spawn(&pid, "/nonexistent/program", NULL, NULL, none, environ);
	printf("posix_spawn missing: %s\n", strerror(e));
	e = posix_spawn(&pid, "/etc/passwd", NULL, NULL, none, environ);
	printf("posix_spawn not executable: %s\n", strerror(e));
	if (e == 0)
		waitpid(pid, &status, 0);
	raise(SIGUSR1);
	printf("parent handler still installed: %d\n", got_usr1);
	fflush(stdout);
	pid = vfork();
	if (pid == 0) {
		execl("/bin/true", "true", (char *)NULL);
		_exit(9);
	}
	waitpid(pid, &status, 0);
	printf("vfork exec: exit %d\n", WEXITSTATUS(status));
	pid = vfork();
	if (pid == 0) {
		written_by_child = 42;
		_exit(7);
	}
	waitpid(pid, &status, 0);
	printf("vfork _exit: exit %d, child wrote %d\n", WEXITSTATUS(status), written_by_child);
}

int main(int argc, char **argv)
{
	const char *what = argc > 1 ? argv[1] : "";
	if (!strcmp(what, "thread_kill"))
		thread_kill();
	else if (!strcmp(what, "signalfd"))
		signal_fd();
	else if (!strcmp(what, "spawn"))
		spawning();
	else
		return 2;
	return 0;
}

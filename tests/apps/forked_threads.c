/* Forked children that are not single-threaded programs (issue 19 item 20), by argv[1]:
 *   threads: a forked child creates threads, which report in turn, and exits with 5; the
 *            parent has a second thread computing meanwhile.
 *   daemon:  a double fork: the child starts a new session, forks the daemon and exits; the
 *            daemon, with a thread of its own, reports and ends.
 * What the children report goes through a pipe to the first process, which prints it once
 * the last writer closed it: the output comes in a fixed order, and it is all the first
 * process's (a recording of it replays it). */
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

enum { THREADS = 3 };

static int report_fd;

static void *numbered(void *arg)
{
	dprintf(report_fd, "child thread %ld\n", (long)arg);
	return NULL;
}

static int child_with_threads(void)
{
	for (long i = 0; i < THREADS; i++) {
		pthread_t t;
		pthread_create(&t, NULL, numbered, (void *)i);
		pthread_join(t, NULL);
	}
	return 5;
}

static void *daemon_thread(void *arg)
{
	(void)arg;
	dprintf(report_fd, "daemon thread: in a session of its own: %s\n",
		getsid(0) == getpgid(0) ? "yes" : "no");
	return NULL;
}

/* The first child of a double fork: the daemon goes on after it. */
static int start_daemon(void)
{
	setsid();
	if (fork() == 0) {
		pthread_t t;
		pthread_create(&t, NULL, daemon_thread, NULL);
		pthread_join(t, NULL);
		dprintf(report_fd, "daemon: done\n");
	}
	return 0;
}

/* Runs child() in a forked child whose report_fd is a pipe's write end, prints what the
 * children write there until the last of them closes it, then how the child ended. */
static int fork_and_report(int (*child)(void))
{
	int p[2];
	if (pipe(p) < 0)
		return 1;
	report_fd = p[1];
	pid_t pid = fork();
	if (pid == 0) {
		close(p[0]);
		_exit(child());
	}
	close(p[1]);
	char buf[256];
	ssize_t n;
	while ((n = read(p[0], buf, sizeof buf)) > 0)
		fwrite(buf, 1, (size_t)n, stdout);
	printf("the children closed the pipe\n");
	int status;
	waitpid(pid, &status, 0);
	if (WIFEXITED(status))
		printf("child exited with %d\n", WEXITSTATUS(status));
	else
		printf("child ended by signal %d\n", WTERMSIG(status));
	return 0;
}

static void *computing(void *arg)
{
	long sum = 0;
	for (long i = 0; i < 300000; i++)
		sum += i % 3;
	*(long *)arg = sum;
	return NULL;
}

static int threads(void)
{
	long sum;
	pthread_t computer;
	pthread_create(&computer, NULL, computing, &sum);
	int r = fork_and_report(child_with_threads);
	pthread_join(computer, NULL);
	printf("the parent's thread computed %ld\n", sum);
	return r;
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc > 1 && !strcmp(argv[1], "threads"))
		return threads();
	if (argc > 1 && !strcmp(argv[1], "daemon"))
		return fork_and_report(start_daemon);
	fprintf(stderr, "usage: forked_threads threads|daemon\n");
	return 2;
}

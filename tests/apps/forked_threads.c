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

/* What the children wrote into p[0] until the last of them closed it. */
static void print_reports(int fd)
{
	char buf[256];
	ssize_t n;
	while ((n = read(fd, buf, sizeof buf)) > 0)
		fwrite(buf, 1, (size_t)n, stdout);
	printf("the children closed the pipe\n");
}

static void report(int status)
{
	if (WIFEXITED(status))
		printf("child exited with %d\n", WEXITSTATUS(status));
	else
		printf("child ended by signal %d\n", WTERMSIG(status));
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
	int p[2];
	if (pipe(p) < 0)
		return 1;
	report_fd = p[1];
	long sum;
	pthread_t computer;
	pthread_create(&computer, NULL, computing, &sum);
	pid_t pid = fork();
	if (pid == 0)
		_exit(child_with_threads());
	close(p[1]);
	print_reports(p[0]);
	int status;
	waitpid(pid, &status, 0);
	report(status);
	pthread_join(computer, NULL);
	printf("the parent's thread computed %ld\n", sum);
	return 0;
}

static void *daemon_thread(void *arg)
{
	(void)arg;
	dprintf(report_fd, "daemon thread: in a session of its own: %s\n",
		getsid(0) == getpgid(0) ? "yes" : "no");
	return NULL;
}

static int daemonize(void)
{
	int p[2];
	if (pipe(p) < 0)
		return 1;
	report_fd = p[1];
	pid_t pid = fork();
	if (pid == 0) {
		close(p[0]);
		setsid();
		if (fork() == 0) {
			pthread_t t;
			pthread_create(&t, NULL, daemon_thread, NULL);
			pthread_join(t, NULL);
			dprintf(report_fd, "daemon: done\n");
			_exit(0);
		}
		_exit(0);
	}
	close(p[1]);
	int status;
	waitpid(pid, &status, 0);
	report(status);
	print_reports(p[0]);
	return 0;
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc > 1 && !strcmp(argv[1], "threads"))
		return threads();
	if (argc > 1 && !strcmp(argv[1], "daemon"))
		return daemonize();
	fprintf(stderr, "usage: forked_threads threads|daemon\n");
	return 2;
}

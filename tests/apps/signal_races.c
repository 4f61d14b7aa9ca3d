/* Signals raced against system calls (issue 19 item 14), by argv[1]:
 *   storm: the main thread sends the process SIGUSR1 2000 times (the next once the last
 *          was handled, so none merge); whichever thread takes it sends its own thread
 *          SIGUSR2 from the handler, while a second thread writes and reads a pipe in a
 *          tight loop (SA_RESTART: its calls restart, its bytes stay in order).
 *   cancel: 20 times, a thread blocked in read() on an empty pipe is cancelled and joined.
 * Each prints counts that are the same every run; a lost or doubled signal, a hang, or a
 * byte out of order shows. */
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

enum { SIGNALS = 2000, CANCELS = 20 };

static atomic_int usr1, usr2, looping, stop;

static void on_usr2(int sig)
{
	(void)sig;
	atomic_fetch_add(&usr2, 1);
}

static void on_usr1(int sig)
{
	(void)sig;
	/* Raised inside the handler: delivered when this one returns, before the count is
	 * seen by the sender. */
	raise(SIGUSR2);
	atomic_fetch_add(&usr1, 1);
}

static void *syscall_loop(void *arg)
{
	int *p = arg;
	long disorder = 0;
	for (unsigned char next = 0; !atomic_load(&stop); next++) {
		unsigned char got = (unsigned char)~next;
		if (write(p[1], &next, 1) != 1 || read(p[0], &got, 1) != 1 || got != next)
			disorder++;
		getppid();
		atomic_store(&looping, 1);
	}
	printf("syscall thread: %s\n", disorder ? "bytes lost or out of order" : "bytes in order");
	return NULL;
}

static int storm(void)
{
	struct sigaction sa = {.sa_flags = SA_RESTART};
	sa.sa_handler = on_usr1;
	sigaction(SIGUSR1, &sa, NULL);
	sa.sa_handler = on_usr2;
	sigaction(SIGUSR2, &sa, NULL);
	int p[2];
	if (pipe(p) < 0)
		return 1;
	pthread_t t;
	pthread_create(&t, NULL, syscall_loop, p);
	while (!atomic_load(&looping))
		__builtin_ia32_pause();
	for (int i = 1; i <= SIGNALS; i++) {
		kill(getpid(), SIGUSR1);
		while (atomic_load(&usr1) < i || atomic_load(&usr2) < i)
			__builtin_ia32_pause();
	}
	atomic_store(&stop, 1);
	pthread_join(t, NULL);
	printf("storm: %d SIGUSR1 sent, %d handled, %d SIGUSR2 raised from handlers\n", SIGNALS,
	       atomic_load(&usr1), atomic_load(&usr2));
	return 0;
}

static pthread_barrier_t ready;

static void *blocked_reader(void *arg)
{
	int fd = *(int *)arg;
	char c;
	pthread_barrier_wait(&ready);
	read(fd, &c, 1); /* nothing comes: only the cancellation ends it */
	return NULL;
}

static int cancel(void)
{
	int cancelled = 0;
	pthread_barrier_init(&ready, NULL, 2);
	for (int i = 0; i < CANCELS; i++) {
		int p[2];
		if (pipe(p) < 0)
			return 1;
		pthread_t t;
		pthread_create(&t, NULL, blocked_reader, &p[0]);
		pthread_barrier_wait(&ready);
		usleep(1000); /* most often in read() by now; before it, read() is cancelled too */
		pthread_cancel(t);
		void *result;
		pthread_join(t, &result);
		cancelled += result == PTHREAD_CANCELED;
		close(p[0]);
		close(p[1]);
	}
	printf("cancel: %d of %d threads cancelled in read()\n", cancelled, CANCELS);
	return 0;
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc > 1 && !strcmp(argv[1], "storm"))
		return storm();
	if (argc > 1 && !strcmp(argv[1], "cancel"))
		return cancel();
	fprintf(stderr, "usage: signal_races storm|cancel\n");
	return 2;
}

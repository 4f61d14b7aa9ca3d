/* Ends by a signal, as chosen by argv[1]: the parent must see the same wait status under
 * the logger as natively (the logger dies of the same signal), and a recording ends where
 * the app died. abort, segv, term, fpe: the main thread; thread_segv: a second thread
 * faults while the main thread waits for it; spin: loops until a signal from outside. */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static volatile int *volatile nowhere = (int *)16;

static void *faulting_thread(void *arg)
{
	printf("thread about to fault\n");
	fflush(stdout);
	*nowhere = 1;
	return arg;
}

int main(int argc, char **argv)
{
	const char *how = argc > 1 ? argv[1] : "abort";
	printf("about to die by %s\n", how);
	fflush(stdout);
	if (!strcmp(how, "abort"))
		abort();
	if (!strcmp(how, "segv"))
		*(volatile int *)(long)argc = 1; /* address 2: unmapped */
	if (!strcmp(how, "term"))
		raise(SIGTERM);
	if (!strcmp(how, "fpe")) {
		volatile int zero = argc - 2;
		printf("%d\n", argc / zero);
	}
	if (!strcmp(how, "thread_segv")) {
		pthread_t t;
		pthread_create(&t, NULL, faulting_thread, NULL);
		pthread_join(t, NULL);
	}
	if (!strcmp(how, "spin"))
		for (volatile unsigned long i = 0;; i++)
			;
	return 3;
}

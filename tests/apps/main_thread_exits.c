/* The main thread calls pthread_exit while other threads run (issue 19 item 12): the
 * process lives on until its last thread ends, with that thread's exit status (argv[1]:
 * "return", the last thread returns and the status is 0; "exit", it calls exit(3)). The
 * threads take turns in a fixed order, so the output is the same every run. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static pthread_t main_thread, first;
static int exit_status = -1;

static void *second_thread(void *arg)
{
	(void)arg;
	pthread_join(first, NULL);
	printf("second: the first thread is done\n");
	if (exit_status >= 0)
		exit(exit_status);
	return NULL;
}

static void *first_thread(void *arg)
{
	(void)arg;
	/* Joining the main thread waits for its pthread_exit, as glibc allows. */
	int r = pthread_join(main_thread, NULL);
	printf("first: joined the main thread: %s\n", r ? strerror(r) : "ok");
	long sum = 0;
	for (long i = 0; i < 1000000; i++)
		sum += i % 7;
	printf("first: computed %ld after the main thread left\n", sum);
	return NULL;
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc > 1 && !strcmp(argv[1], "exit"))
		exit_status = 3;
	main_thread = pthread_self();
	pthread_t second;
	pthread_create(&first, NULL, first_thread, NULL);
	pthread_create(&second, NULL, second_thread, NULL);
	pthread_detach(second);
	printf("main: leaving with pthread_exit\n");
	pthread_exit(NULL);
}

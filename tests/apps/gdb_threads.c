/* The gdb tests' threaded program: a second thread, named "worker", runs worker_step a few
 * times while the main thread waits for it; the exit status is the worker's sum. */
#include <pthread.h>
#include <stdio.h>

int worker_total;

int worker_step(int i)
{
	worker_total += i;
	return worker_total;
}

static void *worker(void *arg)
{
	(void)arg;
	pthread_setname_np(pthread_self(), "worker");
	for (int i = 1; i <= 3; i++)
		worker_step(i);
	return NULL;
}

int main(void)
{
	pthread_t t;
	pthread_create(&t, NULL, worker, NULL);
	pthread_join(t, NULL);
	printf("worker total %d\n", worker_total);
	return worker_total;
}

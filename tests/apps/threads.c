/* Eight threads with a mutex, a condition variable, a barrier, atomics and TLS. */
#include <pthread.h>
#include <stdio.h>
static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static pthread_barrier_t bar;
static long total;
static int ready;
static __thread long mine;
static _Atomic long atom;
static void *work(void *arg)
{
	long id = (long)arg;
	for (int i = 0; i < 100000; i++) {
		mine += id;
		atom++;
	}
	pthread_barrier_wait(&bar);
	pthread_mutex_lock(&m);
	total += mine;
	ready++;
	pthread_cond_signal(&cv);
	pthread_mutex_unlock(&m);
	return (void *)mine;
}
int main(void)
{
	pthread_t t[8];
	pthread_barrier_init(&bar, NULL, 8);
	for (long i = 0; i < 8; i++)
		pthread_create(&t[i], NULL, work, (void *)(i + 1));
	pthread_mutex_lock(&m);
	while (ready < 8)
		pthread_cond_wait(&cv, &m);
	pthread_mutex_unlock(&m);
	long sum = 0;
	for (int i = 0; i < 8; i++) {
		void *r;
		pthread_join(t[i], &r);
		sum += (long)r;
	}
	printf("total %ld sum %ld atom %ld\n", total, sum, (long)atom);
	return 0;
}

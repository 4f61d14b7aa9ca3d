/* The gdb tests' relay: two threads take turns (a mutex and a condition variable) to write
 * the global `relay`, with some work before each turn, so that a replay has a long stretch
 * where both threads live: thread 1 writes the even numbers 0..398, thread 2 the odd ones
 * 1..399. */
#include <pthread.h>
#include <stdio.h>

enum { ROUNDS = 200, WORK = 2000 };

long relay = -1;
static int turn;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t changed = PTHREAD_COND_INITIALIZER;

static long work(long x)
{
	for (int i = 0; i < WORK; i++)
		x = x * 6364136223846793005 + 1442695040888963407;
	return x;
}

static void pass(int me, long value)
{
	pthread_mutex_lock(&lock);
	while (turn != me)
		pthread_cond_wait(&changed, &lock);
	relay = value;
	turn = !me;
	pthread_cond_broadcast(&changed);
	pthread_mutex_unlock(&lock);
}

static void *second(void *arg)
{
	long x = (long)arg;
	for (int k = 0; k < ROUNDS; k++) {
		x = work(x);
		pass(1, 2 * k + 1);
	}
	return (void *)x;
}

int main(void)
{
	pthread_t t;
	pthread_create(&t, NULL, second, (void *)1);
	long x = 0;
	for (int k = 0; k < ROUNDS; k++) {
		x = work(x);
		pass(0, 2 * k);
	}
	void *y;
	pthread_join(t, &y);
	printf("relay %ld, work %lx\n", relay, (unsigned long)(x ^ (long)y));
	return 0;
}

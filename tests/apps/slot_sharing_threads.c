/* Two threads call three functions in turn through pointers, each function aligned to
 * 64 KiB so that all three take one slot of a thread's indirect-branch lookup table. The
 * entries' links that pass a mismatched target on (fragment_link_mismatch) are shared by
 * the threads, whose tables are their own: without them every call is a trip through the
 * dispatcher. Exits 0 when every thread's sum is right. */
#include <pthread.h>
#include <stdint.h>

enum { CALLS = 100000, THREADS = 2 };

#define TWIN(name, value)                                                                          \
	__attribute__((noinline, aligned(65536))) static uint64_t name(uint64_t sum)               \
	{                                                                                          \
		return sum + (value);                                                              \
	}
TWIN(twin_a, 1)
TWIN(twin_b, 2)
TWIN(twin_c, 3)

static uint64_t (*const volatile twins[])(uint64_t) = {twin_a, twin_b, twin_c};

static void *run(void *arg)
{
	uint64_t sum = 0;
	for (int i = 0; i < CALLS; i++)
		for (int k = 0; k < 3; k++)
			sum = twins[k](sum);
	*(uint64_t *)arg = sum;
	return NULL;
}

int main(void)
{
	pthread_t threads[THREADS];
	uint64_t sums[THREADS];
	for (int i = 0; i < THREADS; i++)
		if (pthread_create(&threads[i], NULL, run, &sums[i]))
			return 2;
	int bad = 0;
	for (int i = 0; i < THREADS; i++) {
		pthread_join(threads[i], NULL);
		bad |= sums[i] != 6u * CALLS;
	}
	return bad;
}

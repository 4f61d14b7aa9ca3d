/* Four threads, each storing to its own page between SSC marks 1 and 2 (per-thread
 * regions): thread k (1..4) writes 10*k distinct 64-byte lines. Under
 * -control start:ssc:1,stop:ssc:2 the footprint is exactly 100 store lines in 4 pages, no
 * loads, and the region code: store_lines, one 64-byte line. */
#include <pthread.h>
#include <stdio.h>

#include "store_lines.h"

enum { THREADS = 4 };

static _Alignas(4096) char pages[THREADS][4096];

static void *worker(void *arg)
{
	long k = (long)arg;
	store_lines(pages[k], 10 * (k + 1), 64);
	return NULL;
}

int main(void)
{
	pthread_t t[THREADS];
	for (long k = 0; k < THREADS; k++)
		pthread_create(&t[k], NULL, worker, (void *)k);
	for (int k = 0; k < THREADS; k++)
		pthread_join(t[k], NULL);
	printf("%d threads touched their pages\n", THREADS);
	return 0;
}

/* Two threads storing to alternate 64-byte lines of the same buffers at the same time (a
 * barrier starts each round together): the bitmap words of -footprint hold the bits of
 * both threads' lines, so marks that are not atomic lose some. Between SSC marks 1 and 2
 * (per-thread regions) the footprint is exactly ROUNDS * LINES store lines in
 * ROUNDS * LINES / 64 pages, no loads, and the loop's code. */
#include <pthread.h>
#include <stdio.h>

#include "store_lines.h"

enum { ROUNDS = 4, LINES = 1 << 15 };

static _Alignas(4096) char buffers[ROUNDS][LINES * 64];
static pthread_barrier_t together;

static void *worker(void *arg)
{
	long k = (long)arg;
	for (int round = 0; round < ROUNDS; round++) {
		pthread_barrier_wait(&together);
		store_lines(buffers[round] + 64 * k, LINES / 2, 128);
	}
	return NULL;
}

int main(void)
{
	pthread_t t[2];
	pthread_barrier_init(&together, NULL, 2);
	for (long k = 0; k < 2; k++)
		if (pthread_create(&t[k], NULL, worker, (void *)k)) {
			perror("pthread_create");
			return 1;
		}
	for (int k = 0; k < 2; k++)
		pthread_join(t[k], NULL);
	puts("stored");
	return 0;
}

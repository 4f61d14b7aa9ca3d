/* Four threads, each storing to its own page between SSC marks 1 and 2 (per-thread
 * regions): thread k (1..4) writes 10*k distinct 64-byte lines. Under
 * -control start:ssc:1,stop:ssc:2 the footprint is exactly 100 store lines in 4 pages, no
 * loads, and the region code: touch_lines, one 64-byte line. */
#include <pthread.h>
#include <stdio.h>

enum { THREADS = 4 };

static _Alignas(4096) char pages[THREADS][4096];

/* touch_lines(buf, n): the marks and the loop in assembly, so that the region touches no
 * stack and nothing but buf. */
void touch_lines(char *buf, long n);
__asm__(".text\n"
	".p2align 6\n"
	".globl touch_lines\n"
	"touch_lines:\n\t"
	"push %rbx\n\t"
	"mov $1, %ebx\n\t"
	".byte 0x64, 0x67, 0x90\n"
	"1:\tmovq %rsi, (%rdi)\n\t"
	"add $64, %rdi\n\t"
	"dec %rsi\n\t"
	"jnz 1b\n\t"
	"mov $2, %ebx\n\t"
	".byte 0x64, 0x67, 0x90\n\t"
	"pop %rbx\n\t"
	"ret\n");

static void *worker(void *arg)
{
	long k = (long)arg;
	touch_lines(pages[k], 10 * (k + 1));
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

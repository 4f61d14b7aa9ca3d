/* Code translated before a first-touch region, left alone inside it, and rewritten after
 * it: the region's end must give the code page back write-protected, so that a rewrite
 * still reaches the runtime and the new code runs (not a stale translation). */
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>

#include "ssc_mark.h"

typedef int (*fn)(void);

/* mov $value,%eax; ret */
static void emit_return(unsigned char *p, int value)
{
	p[0] = 0xb8;
	memcpy(p + 1, &value, 4);
	p[5] = 0xc3;
	__builtin___clear_cache((char *)p, (char *)p + 6);
}

int main(void)
{
	unsigned char *code = mmap(NULL, 4096, PROT_READ | PROT_WRITE | PROT_EXEC,
				   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (code == MAP_FAILED)
		return 1;
	emit_return(code, 1);
	int before = ((fn)code)();

	SSC_MARK(0x11223344);
	volatile unsigned sum = 0;
	for (unsigned i = 0; i < 1000; i++)
		sum += i;
	printf("in the region: sum %u\n", sum);
	fflush(stdout);
	SSC_MARK(0x55667788);

	/* Translated again after the region (the region's end retranslates everything), then
	 * rewritten: the write must still be seen. */
	int again = ((fn)code)();
	emit_return(code, 2);
	int after = ((fn)code)();
	/* stderr: a replay of the region does not reach this */
	fprintf(stderr, "before the region %d, after it %d then %d\n", before, again, after);
	return after == 2 ? 0 : 1;
}

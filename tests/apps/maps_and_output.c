/* For the hostile-pinball tests: maps, remaps and unmaps memory (events whose results a
 * mutant points at memory that is not the app's), then writes 160 KiB to stdout, so that a
 * replay whose stdout nobody reads stops there, its own mappings in place to be looked at. */
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>

int main(void)
{
	size_t len = 16 * 4096;
	char *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return 1;
	memset(p, 1, len);
	char *q = mremap(p, len, 2 * len, MREMAP_MAYMOVE);
	if (q == MAP_FAILED || munmap(q, 2 * len))
		return 1;
	for (int i = 0; i < 4096; i++)
		printf("line %4d of what fills a pipe nobody reads\n", i);
	return 0;
}

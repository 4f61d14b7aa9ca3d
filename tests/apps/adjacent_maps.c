/* Two anonymous mappings, one right after the other (two mmap calls: two entries of the
 * app's memory map, one area of the kernel's), made before a region starts at
 * region_starts_here; a fat region start then records their all-zero pages as one run
 * over both entries. The region writes into both and prints what it reads back. */
#include <stdio.h>
#include <sys/mman.h>

enum { SIZE = 4 * 4096 };

__attribute__((noinline)) void region_starts_here(void)
{
	__asm__ volatile("");
}

int main(void)
{
	char *area = mmap(NULL, 2 * SIZE, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (area == MAP_FAILED ||
	    mmap(area, SIZE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1,
		 0) == MAP_FAILED ||
	    mmap(area + SIZE, SIZE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED,
		 -1, 0) == MAP_FAILED)
		return 2;
	region_starts_here();
	area[SIZE - 1] = 7;
	area[SIZE] = 35;
	printf("%d\n", area[SIZE - 1] + area[SIZE] + area[2 * SIZE - 1]);
	return 0;
}

/* mremap in its forms, each checked by the data it must keep: growing in place, growing
 * by moving (the pages after it are taken), MREMAP_FIXED onto a chosen address that holds
 * another mapping, MREMAP_DONTUNMAP (the old range stays, empty), and shrinking. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>

#ifndef MREMAP_DONTUNMAP
#define MREMAP_DONTUNMAP 4
#endif

enum { PAGE = 4096 };

static unsigned sum(const unsigned char *p, size_t len)
{
	unsigned s = 0;
	for (size_t i = 0; i < len; i++)
		s = s * 31 + p[i];
	return s;
}

static unsigned char *map(size_t len)
{
	unsigned char *p =
	    mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	return p == MAP_FAILED ? NULL : p;
}

int main(void)
{
	/* room to grow in place: reserve 64 pages, keep the first 16 */
	unsigned char *room = map(64 * PAGE);
	if (!room)
		return 1;
	munmap(room + 16 * PAGE, 48 * PAGE);
	memset(room, 7, 16 * PAGE);
	unsigned char *grown = mremap(room, 16 * PAGE, 32 * PAGE, MREMAP_MAYMOVE);
	printf("grown in place: %s, sum %u\n", grown == room ? "yes" : "no", sum(grown, 16 * PAGE));
	memset(grown + 16 * PAGE, 9, 16 * PAGE);

	/* a mapping right after it: growing must move */
	unsigned char *blocker = mmap(grown + 32 * PAGE, PAGE, PROT_READ,
				      MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
	unsigned char *moved = mremap(grown, 32 * PAGE, 48 * PAGE, MREMAP_MAYMOVE);
	printf("moved: %s, sum %u\n",
	       blocker != MAP_FAILED && moved != grown && moved != MAP_FAILED ? "yes" : "no",
	       sum(moved, 32 * PAGE));

	/* onto another mapping, at an address of our choosing */
	unsigned char *target = map(8 * PAGE);
	memset(target, 1, 8 * PAGE);
	unsigned char *fixed =
	    mremap(moved, 48 * PAGE, 8 * PAGE, MREMAP_MAYMOVE | MREMAP_FIXED, target);
	printf("fixed: %s, sum %u\n", fixed == target ? "yes" : "no", sum(fixed, 8 * PAGE));

	/* the old range stays mapped and reads as zeros */
	unsigned char *src = map(4 * PAGE);
	memset(src, 5, 4 * PAGE);
	unsigned char *copy = mremap(src, 4 * PAGE, 4 * PAGE, MREMAP_MAYMOVE | MREMAP_DONTUNMAP);
	if (copy == MAP_FAILED)
		printf("dontunmap: not supported\n");
	else
		printf("dontunmap: copy sum %u, old sum %u\n", sum(copy, 4 * PAGE),
		       sum(src, 4 * PAGE));

	/* shrinking keeps the start */
	unsigned char *small = mremap(fixed, 8 * PAGE, 2 * PAGE, 0);
	printf("shrunk in place: %s, sum %u\n", small == fixed ? "yes" : "no",
	       sum(small, 2 * PAGE));
	return 0;
}

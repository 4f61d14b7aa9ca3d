/* mremap of mappings that hold code the program ran (issue 19 item 13): grown in place,
 * grown by moving, moved onto a chosen address (MREMAP_FIXED), shrunk. After each change
 * the code runs at its new address, code written into the mapping there runs (never a
 * translation of the old bytes), and other code mapped where the old code was runs too. */
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>

enum { PAGE = 4096 };

typedef int (*fn)(void);

static const int RWX = PROT_READ | PROT_WRITE | PROT_EXEC;

/* mov $value,%eax; ret at the start of page i of p. */
static void emit(unsigned char *p, int i, int value)
{
	unsigned char *at = p + (size_t)i * PAGE;
	at[0] = 0xb8;
	memcpy(at + 1, &value, 4);
	at[5] = 0xc3;
	__builtin___clear_cache((char *)at, (char *)at + 6);
}

static int call(unsigned char *p, int i)
{
	return ((fn)(p + (size_t)i * PAGE))();
}

static unsigned char *map_at(void *where, size_t pages, int extra)
{
	unsigned char *p =
	    mmap(where, pages * PAGE, RWX, MAP_PRIVATE | MAP_ANONYMOUS | extra, -1, 0);
	return p == MAP_FAILED ? NULL : p;
}

/* Runs every page's code of p: "value value ...". */
static void show(const char *what, unsigned char *p, int pages)
{
	printf("%-28s", what);
	for (int i = 0; i < pages; i++)
		printf(" %d", call(p, i));
	printf("\n");
}

/* Two pages of code with a free page after them, grown into it. */
static unsigned char *grow_in_place(void)
{
	unsigned char *p = map_at(NULL, 3, 0);
	munmap(p + 2 * PAGE, PAGE);
	emit(p, 0, 1);
	emit(p, 1, 2);
	show("two pages", p, 2);
	unsigned char *q = mremap(p, 2 * PAGE, 3 * PAGE, 0);
	if (q != p) {
		printf("grown in place: %s\n", q == MAP_FAILED ? "failed" : "moved");
		return NULL;
	}
	emit(p, 2, 3);
	emit(p, 0, 11);
	show("grown in place, rewritten", p, 3);
	return p;
}

/* The pages after p taken: growing moves it; the old place gets other code. */
static unsigned char *grow_by_moving(unsigned char *p)
{
	unsigned char *wall = map_at(p + 3 * PAGE, 1, MAP_FIXED_NOREPLACE);
	unsigned char *q = mremap(p, 3 * PAGE, 4 * PAGE, MREMAP_MAYMOVE);
	if (q == MAP_FAILED || q == p) {
		printf("grown by moving: %s\n", q == p ? "stayed" : "failed");
		return NULL;
	}
	show("moved, as it was", q, 3);
	emit(q, 3, 4);
	emit(q, 1, 22);
	show("moved, rewritten", q, 4);
	unsigned char *old = map_at(p, 1, MAP_FIXED_NOREPLACE);
	if (old) {
		emit(old, 0, 99);
		show("other code where it was", old, 1);
		munmap(old, PAGE);
	}
	if (wall)
		munmap(wall, PAGE);
	return q;
}

/* Moved onto a chosen address that held other code, which is replaced. */
static unsigned char *move_fixed(unsigned char *p)
{
	unsigned char *target = map_at(NULL, 4, 0);
	emit(target, 0, 77);
	show("the target's own code", target, 1);
	unsigned char *q = mremap(p, 4 * PAGE, 4 * PAGE, MREMAP_MAYMOVE | MREMAP_FIXED, target);
	if (q != target) {
		printf("moved onto a chosen address: failed\n");
		return NULL;
	}
	show("moved onto it", q, 4);
	emit(q, 2, 33);
	show("there, rewritten", q, 4);
	return q;
}

/* Shrunk to one page; code mapped in what it gave back. */
static void shrink(unsigned char *p)
{
	unsigned char *q = mremap(p, 4 * PAGE, PAGE, 0);
	if (q != p) {
		printf("shrunk: failed\n");
		return;
	}
	show("shrunk", p, 1);
	unsigned char *freed = map_at(p + PAGE, 3, MAP_FIXED_NOREPLACE);
	if (freed) {
		emit(freed, 0, 55);
		emit(freed, 1, 56);
		emit(freed, 2, 57);
		show("new code after it", p, 4);
		munmap(freed, 3 * PAGE);
	}
	munmap(p, PAGE);
}

int main(void)
{
	unsigned char *p = grow_in_place();
	if (p)
		p = grow_by_moving(p);
	if (p)
		p = move_fixed(p);
	if (p)
		shrink(p);
	return p ? 0 : 1;
}

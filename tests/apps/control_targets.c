/* Targets for every alarm type of the -control language, used by tests/controller_e2e.
 * Built without PIE so that symbol addresses (nm) are the runtime addresses.
 *
 * The scenario is chosen by argv[1]; each prints what it did, so the tests can also check
 * that the program ran unchanged under the logger. */
#include <cpuid.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "ssc_mark.h"

#define NOINLINE __attribute__((noinline, noclone))
#define BARRIER() __asm__ volatile("" ::: "memory")

volatile unsigned long sink;

NOINLINE void D(void)
{
	sink++;
}
NOINLINE void C(void)
{
	D();
	sink++;
}
NOINLINE void foo(void)
{
	C();
	sink++;
}
NOINLINE void bar(void)
{
	foo();
	sink++;
}
NOINLINE void boo(void)
{
	sink++;
}
NOINLINE void B(void)
{
	foo();
	sink++;
}
NOINLINE void A(void)
{
	B();
	sink++;
}

NOINLINE void rfoo(int depth) /* A->foo->foo->foo->foo->C */
{
	if (depth > 0)
		rfoo(depth - 1);
	else
		C();
	sink++;
}

NOINLINE void bar2(int second); /* A->bar->foo->C->bar */
NOINLINE void foo2(void)
{
	C();
	bar2(1);
	sink++;
}
NOINLINE void bar2(int second)
{
	if (!second)
		foo2();
	sink++;
}

/* MPI's region marker, as an MPI program would call it. */
NOINLINE int MPI_Pcontrol(int level, const char *name)
{
	BARRIER();
	return level + (name ? 1 : 0);
}

/* Exactly 2001 instructions between the marks: mov, then 1000 x (dec, jnz). */
NOINLINE void counted_region(void)
{
	SSC_MARK(0x11223344);
	__asm__ volatile("mov $1000, %%ecx\n1: dec %%ecx\n jnz 1b" ::: "ecx", "cc");
	SSC_MARK(0x55667788);
}

static void spin(unsigned long n)
{
	for (unsigned long i = 0; i < n; i++)
		sink += i;
}

int main(int argc, char **argv)
{
	const char *what = argc > 1 ? argv[1] : "calls";
	if (!strcmp(what, "calls")) { /* foo, bar, boo, in that order, around ssc marks */
		foo();
		SSC_MARK(0x11223344);
		foo();
		bar();
		boo();
		foo();
		bar();
		boo();
	} else if (!strcmp(what, "region")) {
		counted_region();
	} else if (!strcmp(what, "nested")) {
		A();	 /* A->B->foo->C->D */
		bar2(0); /* A->bar->foo->C->bar */
		rfoo(3); /* A->foo->foo->foo->foo->C */
	} else if (!strcmp(what, "insns")) {
		unsigned a, b, c, d;
		__cpuid_count(0, 0, a, b, c, d);
		__cpuid_count(0x4567, 0, a, b, c, d); /* a leaf no library asks for */
		__asm__ volatile("mov $0x1234, %%eax\n xchg %%ebx, %%ebx" ::: "eax", "memory");
		__asm__ volatile("pause");
		MPI_Pcontrol(1, "other");
		MPI_Pcontrol(1, "phase2");
		sink += a + b + c + d;
	} else if (!strcmp(what, "int3")) {
		__asm__ volatile("int3\n nop"); /* survives only when the int3 is not executed */
	} else if (!strcmp(what, "spin")) {
		spin(argc > 2 ? 20000000ul : 2000000ul);
		struct timespec ts = {0, 0};
		clock_gettime(CLOCK_MONOTONIC, &ts);
		time_t until = ts.tv_sec + 5;
		while (ts.tv_sec < until && argc > 2) {
			spin(100000);
			clock_gettime(CLOCK_MONOTONIC, &ts);
		}
	}
	printf("%s done\n", what);
	return 0;
}

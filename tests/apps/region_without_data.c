/* A region whose code touches no data page: a register-only loop between two SSC marks.
 * First-touch recording withholds every page at region start; the block that catches the
 * stop mark goes on to its end (the call below pushes its return address) before the
 * region's end takes effect, and still finds its pages. Output after the region goes to
 * stderr (a replay of the region does not reach it). */
#include <stdio.h>

#include "ssc_mark.h"

static void counted_loop(long n)
{
	__asm__ volatile("mov %0, %%rcx\n1: add $1, %%rax\n dec %%rcx\n jnz 1b"
			 :
			 : "r"(n)
			 : "rax", "rcx", "cc");
}

int main(void)
{
	SSC_MARK(0x11223344);
	counted_loop(100000);
	SSC_MARK(0x55667788);
	fputs("done\n", stderr);
	return 0;
}

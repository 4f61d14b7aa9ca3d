/* Huge reservations with a few pages touched, made before the region starts (an SSC mark):
 * 8 GiB PROT_NONE with 1 MiB opened inside it, and 4 GiB readable and writable
 * (MAP_NORESERVE). A recording that read every page of them would copy gigabytes. */
#include <stdio.h>
#include <sys/mman.h>

#include "ssc_mark.h"

int main(void)
{
	char *none =
	    mmap(NULL, 8ul << 30, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	char *rw = mmap(NULL, 4ul << 30, PROT_READ | PROT_WRITE,
			MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (none == MAP_FAILED || rw == MAP_FAILED ||
	    mprotect(none, 1 << 20, PROT_READ | PROT_WRITE))
		return 1;
	none[0] = 1;
	rw[1ul << 31] = 2;
	SSC_MARK(0x11223344);
	none[40960] = 3;
	rw[0] = 4;
	printf("%d %d %d %d %d\n", none[0], none[40960], rw[0], rw[1ul << 31], rw[3ul << 30]);
	fflush(stdout);
	SSC_MARK(0x55667788);
	return 0;
}

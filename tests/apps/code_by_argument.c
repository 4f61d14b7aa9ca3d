/* Code written at a fixed address that differs from run to run: `mov $N,%eax; ret` with N
 * from the command line, called; the exit status is N. A translation of that address kept
 * from a run with another N (-jit:persist) must not run. 77 when the address is taken. */
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) & 0x7f : 0;
	unsigned char *page = mmap((void *)0x7e0000000000, 4096, PROT_READ | PROT_WRITE | PROT_EXEC,
				   MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
	if (page != (unsigned char *)0x7e0000000000)
		return 77;
	const unsigned char code[] = {0xb8, (unsigned char)n, 0, 0, 0, 0xc3};
	memcpy(page, code, sizeof code);
	return ((int (*)(void))(void *)page)();
}

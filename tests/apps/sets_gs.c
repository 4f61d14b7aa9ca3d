/* Sets its %gs base, which the runtime owns: it must be refused in one clear line. */
#include <asm/prctl.h>
#include <stdio.h>
#include <sys/syscall.h>
#include <unistd.h>

int main(void)
{
	static long area[16];
	long r = syscall(SYS_arch_prctl, ARCH_SET_GS, (unsigned long)area);
	printf("ARCH_SET_GS returned %ld\n", r);
	return 0;
}

/* int $0x80 from 64-bit code (issue 19 item 9): Linux runs it as an i386 system call
 * (number in eax, arguments in ebx, ecx, edx, esi, edi, ebp, 32 bits each; the result in
 * rax; every other register kept). Calls of the common kind, a pointer cut to 32 bits, a
 * number with upper bits in rax, an unknown number, and the exit through it (status 3). */
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

enum { I386_EXIT_GROUP = 252, I386_GETPID = 20, I386_WRITE = 4, I386_GETPPID = 64 };

static long int80(long nr, long b, long c, long d)
{
	long r;
	__asm__ volatile("int $0x80" : "=a"(r) : "a"(nr), "b"(b), "c"(c), "d"(d) : "memory");
	return r;
}

/* Whether rcx, rsi, rdi and r8-r11 keep their values across a call (as since Linux 4.17). */
static int keeps_registers(void)
{
	long nr = I386_GETPID, rcx = 0x1111, rsi = 0x2222, rdi = 0x3333;
	register long r8 __asm__("r8") = 0x8888;
	register long r9 __asm__("r9") = 0x9999;
	register long r10 __asm__("r10") = 0xaaaa;
	register long r11 __asm__("r11") = 0xbbbb;
	__asm__ volatile("int $0x80"
			 : "+a"(nr), "+c"(rcx), "+S"(rsi), "+D"(rdi), "+r"(r8), "+r"(r9), "+r"(r10),
			   "+r"(r11)
			 :
			 : "memory");
	return rcx == 0x1111 && rsi == 0x2222 && rdi == 0x3333 && r8 == 0x8888 && r9 == 0x9999 &&
	       r10 == 0xaaaa && r11 == 0xbbbb && nr == getpid();
}

int main(void)
{
	setvbuf(stdout, NULL, _IONBF, 0);
	printf("getpid: %s\n", int80(I386_GETPID, 0, 0, 0) == getpid() ? "ours" : "another");
	printf("getppid: %s\n", int80(I386_GETPPID, 0, 0, 0) == getppid() ? "ours" : "another");
	printf("getpid, upper half of rax set: %s\n",
	       int80(0x100000000 | I386_GETPID, 0, 0, 0) == getpid() ? "ours" : "another");
	printf("registers kept: %s\n", keeps_registers() ? "yes" : "no");
	char *low = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_32BIT, -1, 0);
	if (low == MAP_FAILED)
		return 1;
	strcpy(low, "written from below 4 GiB\n");
	printf("write: %ld\n", int80(I386_WRITE, 1, (long)low, (long)strlen(low)));
	/* The same address with bit 32 set: the kernel sees only the low half. */
	printf("write: %ld\n", int80(I386_WRITE, 1, (long)low + (1l << 32), (long)strlen(low)));
	printf("write to a bad descriptor: %ld\n", int80(I386_WRITE, 999, (long)low, 1));
	printf("an unknown number: %ld\n", int80(0xffff, 0, 0, 0));
	int80(I386_EXIT_GROUP, 3, 0, 0);
	return 0;
}

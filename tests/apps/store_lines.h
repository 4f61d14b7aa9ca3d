/* store_lines(p, n, stride): n 8-byte stores, `stride` bytes apart from p, between SSC
 * marks 1 and 2, in one 64-byte line of code: a region that touches nothing else (no stack)
 * and runs 2 + 4n instructions. For the -footprint tests of threads. */
#ifndef STORE_LINES_H
#define STORE_LINES_H

void store_lines(char *p, long n, long stride);
__asm__(".text\n"
	".p2align 6\n"
	".globl store_lines\n"
	"store_lines:\n\t"
	"push %rbx\n\t"
	"mov $1, %ebx\n\t"
	".byte 0x64, 0x67, 0x90\n"
	"1:\tmovq %rsi, (%rdi)\n\t"
	"add %rdx, %rdi\n\t"
	"dec %rsi\n\t"
	"jnz 1b\n\t"
	"mov $2, %ebx\n\t"
	".byte 0x64, 0x67, 0x90\n\t"
	"pop %rbx\n\t"
	"ret\n");

#endif

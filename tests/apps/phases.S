/* A program of three phases of known length (tests/sim/pinpoints.sh): 2,000,000
 * instructions each of an integer loop, a loop of loads over 64 KiB, and a multiplying
 * loop, then exit (10 instructions around them). */
	.text
	.globl _start
_start:
	mov $500000, %ecx		/* phase A: 4 x 500000 */
1:	add %rax, %rbx
	xor %rdx, %rbx
	dec %ecx
	jnz 1b
	lea buf(%rip), %rsi		/* phase B: 5 x 400000 */
	xor %edx, %edx
	mov $400000, %ecx
2:	mov (%rsi,%rdx), %rax
	add $64, %edx
	and $0xffff, %edx
	dec %ecx
	jnz 2b
	mov $500000, %ecx		/* phase C: 4 x 500000 */
3:	imul %rax, %rbx
	add $3, %rax
	sub $1, %ecx
	jnz 3b
	mov $60, %eax
	xor %edi, %edi
	syscall
	.bss
	.balign 64
buf:	.space 65536
	.section .note.GNU-stack, "", @progbits

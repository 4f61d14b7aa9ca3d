/* A program whose dynamic instruction count is known exactly: 2120 instructions.
 * A REP string instruction counts once per iteration (zero iterations: zero). */
	.text
	.globl _start
_start:
	mov $1000, %ecx		/* 1 */
1:	dec %ecx		/* 1000 */
	jnz 1b			/* 1000 */
	lea buf(%rip), %rdi	/* 1 */
	mov $100, %ecx		/* 1 */
	xor %eax, %eax		/* 1 */
	rep stosb		/* 100 iterations */
	xor %ecx, %ecx		/* 1 */
	rep stosb		/* 0 iterations */
	lea buf(%rip), %rsi	/* 1 */
	lea buf(%rip), %rdi	/* 1 */
	mov $5, %ecx		/* 1 */
	repe cmpsb		/* 5 iterations (all bytes equal) */
	call leaf		/* 1, leaf: 1 (ret) */
	lea 2f(%rip), %rax	/* 1 */
	jmp *%rax		/* 1 */
2:	mov $60, %eax		/* 1 */
	xor %edi, %edi		/* 1 */
	syscall			/* 1 */
leaf:
	ret
	/* total: 1 + 2000 + 3 + 100 + 1 + 0 + 3 + 5 + 2 + 2 + 3 = 2120 */
	.bss
buf:	.space 256
	.section .note.GNU-stack, "", @progbits

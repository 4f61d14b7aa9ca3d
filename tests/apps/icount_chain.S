/* Exact instruction count through chained blocks: the JIT translates a block together with
 * the blocks its conditional branches fall through to, and a taken branch leaves that
 * fragment in its middle. 1732 instructions; exits 0 when the sum is right.
 * The loop runs for ecx = 300 down to 1: odd values skip both adds, values 2 mod 4 skip
 * the second. */
	.text
	.globl _start, loop, second_add
_start:
	mov $300, %ecx		/* 1 */
	xor %esi, %esi		/* 1 */
loop:	test $1, %cl		/* 300 */
	jnz 2f			/* 300 */
	add $3, %esi		/* 150 */
	test $2, %cl		/* 150 */
	jnz 2f			/* 150 */
second_add:
	add $5, %esi		/* 75 */
2:	dec %ecx		/* 300 */
	jnz loop		/* 300 */
	cmp $825, %esi		/* 1: 150 * 3 + 75 * 5 */
	setne %dil		/* 1 */
	movzbl %dil, %edi	/* 1 */
	mov $60, %eax		/* 1 */
	syscall			/* 1 */
	/* total: 2 + 600 + 450 + 75 + 600 + 5 = 1732 */
	.section .note.GNU-stack, "", @progbits

/* Exact instruction count through a loop whose fragment repeats its body (translate.c,
 * form_loop): the loop is entered at its second block, which so gets a fragment of its
 * own first; the loop's head, reached by the branch back, then chains into that block
 * again because it closes the loop. Under -icount the body runs in copies that share one
 * count update, left in the middle of a copy when the head's branch goes out.
 * ITERATIONS passes through the head (the last one leaves through its branch):
 * 6 * ITERATIONS + 8 instructions; exits 0 when the sum is right. */
#ifndef ITERATIONS
#define ITERATIONS 998
#endif
	.text
	.globl _start, head, second, out
_start:
	mov $-1, %ecx		/* 1 */
	xor %esi, %esi		/* 1 */
	jmp second		/* 1 */
head:	add $1, %esi		/* ITERATIONS */
	cmp $3 * ITERATIONS, %esi /* ITERATIONS */
	je out			/* ITERATIONS: taken the last time */
second:	add $2, %esi		/* ITERATIONS */
	dec %ecx		/* ITERATIONS */
	jnz head		/* ITERATIONS: always taken */
	ud2
out:	cmp $3 * ITERATIONS, %esi /* 1 */
	setne %dil		/* 1 */
	movzbl %dil, %edi	/* 1 */
	mov $60, %eax		/* 1 */
	syscall			/* 1 */
	/* total: 3 + 3 (the first pass through second) + 3 * ITERATIONS + 3 * (ITERATIONS - 1)
	 * + 5 = 6 * ITERATIONS + 8 */
	.section .note.GNU-stack, "", @progbits

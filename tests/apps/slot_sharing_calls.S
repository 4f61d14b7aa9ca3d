/* Indirect calls to TWINS functions whose addresses share their low 16 bits, so that they
 * take one slot of the indirect-branch lookup table: called in turn, each evicted the one
 * before from the table, a trip through the dispatcher per call, until the entries pass
 * a mismatched target on to each other (fragment_link_mismatch). ITERATIONS rounds of
 * calls to all of them in turn; exits 0 when the sum the calls add up is right. */
#ifndef TWINS
#define TWINS 3
#endif
#define ITERATIONS 100000
	.text
	.globl _start
_start:
	xor %esi, %esi
	mov $ITERATIONS, %ebp
round:	lea twins(%rip), %rbx
	mov $TWINS, %r12d
call_one:
	call *%rbx
	add $0x10000, %rbx
	dec %r12d
	jnz call_one
	dec %ebp
	jnz round
	/* twin k adds k + 1 */
	cmp $ITERATIONS * TWINS * (TWINS + 1) / 2, %rsi
	setne %dil
	movzbl %dil, %edi
	mov $60, %eax
	syscall

	.balign 0x10000
twins:
	.rept TWINS
	.balign 0x10000
	add $(. - twins) / 0x10000 + 1, %rsi
	ret
	.endr
	.section .note.GNU-stack, "", @progbits

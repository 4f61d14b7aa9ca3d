/* A taken branch out of a count group subtracts the group's rest with a plain `sub` when
 * the code where it lands writes every flag before reading one: a decision made on code
 * that is not the fragment's own (here on the next page). The program rewrites that code,
 * so that it reads ZF first, before the branch is ever taken: the translation must follow.
 * Exits 0 when the rewritten code saw the app's ZF (set by the cmp before the branch), 1
 * when it saw the count's. */
#include "page_protect.inc"
	.text
	.globl _start, loop, far
	.p2align 12
_start:
	make_page_rwx far	/* the target's page becomes writable */
	mov $10, %ecx
	xor %eax, %eax
	jmp loop		/* so that the loop's head starts its own fragment */
check:	movzbl %al, %edi	/* al = 1: ZF was the app's */
	xor $1, %edi
	mov $60, %eax
	syscall
	.skip 4096 - 96 - (check - _start), 0xcc
loop:	cmp $5, %ecx
	je far			/* far ahead (over 128 bytes): its fall-through shares the count */
	movl $0x90c0940f, far(%rip) /* far: sub %eax,%eax; nop; nop  ->  setz %al; nop */
	dec %ecx
	jnz loop
	jmp check
	.p2align 12		/* the next page: no code of the loop's fragment there */
	.skip 128, 0xcc
far:	sub %eax, %eax
	nop
	nop
	jmp check
	.section .note.GNU-stack, "", @progbits

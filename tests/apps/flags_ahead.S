/* Blocks that end in a call or a jump, leaving the status flags to the code there
 * (jit/flags_ahead.c): a block of one call straight to a function, one calling a PLT-like
 * entry that jumps through a slot in a read-only page, and one jump. Each block starts with
 * the carry set by the code before it. Where the target first writes every flag, the
 * block's count update may change them; where the target reads the carry (setc), the
 * update must keep it.
 * Round 1 runs the three targets as built (xor first: they return 0), a call to a function
 * that reads the carry at once, one to a leaf that writes no flags after which the caller
 * reads the carry, and one to a leaf that returns elsewhere (it stores its return address),
 * where the carry is read: those three add 1 each. Then the program makes the targets' page
 * writable, turns the first instruction of the three into `setc %al`, makes the page
 * read-only and executable again, and runs round 2: every call adds 1.
 * Exit status: 3 + 6 = 9 (6 when a block still counted as it did before the change, which
 * clears the carry). Given the argument `unchanged`, it leaves the targets as built: 3 + 3
 * = 6; given another, it changes them before round 1: 6 + 6 = 12 (6 when a block counted as
 * it would have before the change: kept translations of an `unchanged` run).
 * Instructions: 194, 170 and 194. */
#include "page_protect.inc"
	.text
	.globl _start
_start:
	xor %ebx, %ebx
	xor %r13d, %r13d
	mov $2, %r12d
	cmpq $1, (%rsp)		/* argc */
	je round
	mov 16(%rsp), %rax	/* argv[1] */
	mov $2, %r13d		/* (no change between the rounds) */
	cmpb $'u', (%rax)
	je round
	call rewrite_targets
round:	call set_carry
	jc 1f			/* (taken: the call's block starts with the carry set) */
	ud2
1:	call direct_target
	add %eax, %ebx
	call set_carry
	jc 2f
	ud2
2:	call plt_entry
	add %eax, %ebx
	call set_carry
	jc 3f
	ud2
3:	jmp jump_target
jumped:	add %eax, %ebx
	call set_carry
	jc 4f
	ud2
4:	call reads_carry
	add %eax, %ebx
	call set_carry
	jc 5f
	ud2
5:	call pure_leaf		/* (writes no flags: what follows the call reads the carry) */
	setc %al
	movzbl %al, %eax
	add %eax, %ebx
	call set_carry
	jc 6f
	ud2
6:	call redirecting_leaf	/* (returns elsewhere, which reads the carry) */
	xor %eax, %eax		/* (never runs: writes every flag) */
	ud2
redirected:
	setc %al
	movzbl %al, %eax
	add %eax, %ebx
	call set_carry
	jc 7f
	ud2
7:	call pure_leaf		/* (what follows the call writes every flag) */
	xor %eax, %eax
	dec %r12d
	jz done
	cmp $2, %r13d		/* (round 2 of a run that changed them at the start) */
	je round
	call rewrite_targets
	jmp round
done:	mov %ebx, %edi
	mov $60, %eax
	syscall

set_carry:			/* 1 - 2 borrows */
	mov $1, %ecx
	cmp $2, %ecx
	ret

/* The first three bytes of each target become `setc %al`. */
rewrite_targets:
	mov $2, %r13d
	protect_page direct_target, 3	/* PROT_READ | PROT_WRITE */
	lea direct_target(%rip), %rdi
	call write_setc
	lea slot_target(%rip), %rdi
	call write_setc
	lea jump_target(%rip), %rdi
	call write_setc
	protect_page direct_target, 5	/* PROT_READ | PROT_EXEC */
	ret
write_setc:
	movw $0x920f, (%rdi)
	movb $0xc0, 2(%rdi)
	ret

plt_entry:
	jmp *target_slot(%rip)

reads_carry:
	setc %al
	movzbl %al, %eax
	ret
pure_leaf:
	mov %rdi, %rax
	ret
redirecting_leaf:		/* a `ret` after a store: not where its call returns */
	lea redirected(%rip), %rax
	mov %rax, (%rsp)
	ret

	.balign 4096		/* the targets' page: changing it retires only what relies on it */
direct_target:
	xor %eax, %eax
	nop
	movzbl %al, %eax
	ret
slot_target:
	xor %eax, %eax
	nop
	movzbl %al, %eax
	ret
jump_target:
	xor %eax, %eax
	nop
	movzbl %al, %eax
	jmp jumped
	.balign 4096

	.section .rodata
	.balign 8
target_slot:
	.quad slot_target
	.section .note.GNU-stack, "", @progbits

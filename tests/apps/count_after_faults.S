/* Blocks whose status flags are live at their start (an adc reads the carry of the cmp
 * before them) and that begin with a load: under -icount their count update comes after
 * the load (jit/count_place.h), through a register written whole (loop 1) or inside the
 * lookup of the block's return (loop 2) or indirect jump (loop 3). Each load faults
 * once (its address on page 0); the SIGSEGV handler points %rbx at `one` and the load
 * runs again. A fault before the update must find the block counted as if the update had
 * been made at its start: the count is the one of a build without these placements, and a
 * replay delivers the faults at the recorded counts. Exit status: the carries' sum. */
#include "segv_handler.inc"
	.text
	.globl _start
_start:
	set_segv_handler on_segv, restorer, action
	xor %edi, %edi

	mov $8, %ebx
	mov $100, %ecx
loop1:	cmp $50, %ecx			/* CF: ecx below 50 */
	je skip1
	mov (%rbx), %rdx		/* faults once */
	mov %rcx, %rax			/* the count update goes through %rax before this */
	adc %rdx, %rax
	add %rax, %rdi
skip1:	dec %ecx
	jnz loop1

	mov $8, %ebx
	mov $100, %ecx
loop2:	cmp $50, %ecx
	call add_carry
	dec %ecx
	jnz loop2

	mov $8, %ebx
	mov $100, %ecx
	lea back3(%rip), %r13
loop3:	cmp $50, %ecx
	jmp jump_carry
back3:	dec %ecx
	jnz loop3

	and $0xff, %edi
	mov $60, %eax
	syscall

add_carry:
	mov (%rbx), %rdx		/* faults once */
	adc %rdx, %rdi			/* no flag dead before the return: the update is in its lookup */
	ret

jump_carry:
	mov (%rbx), %rdx		/* faults once */
	adc %rdx, %rdi
	jmp *%r13

/* The kernel's ucontext: uc_mcontext.gregs at 40, REG_RBX the 12th. */
on_segv:
	lea one(%rip), %rax
	mov %rax, 40 + 11 * 8(%rdx)
	ret
restorer:
	mov $15, %eax			/* rt_sigreturn */
	syscall

	.data
one:	.quad 1
	.bss
action:	.zero 32
	.section .note.GNU-stack, "", @progbits

/* A call and a jump through slots in a read-only page (as through a GOT under RELRO): the
 * translation goes straight to each slot's target (jit/constant_slot.c).
 * Then the program makes the page writable, points the slots elsewhere and makes it
 * read-only again: the same branches must reach the new targets. Exit status: the sum of
 * what the targets reached add, 1 + 100 + 10 + 1000 = 1111, as 1111 & 0xff = 87 (202 if the
 * second round still went to the first targets). */
#include "page_protect.inc"
	.text
	.globl _start
_start:
	xor %ebx, %ebx
	mov $2, %r12d
round:	call *call_slot(%rip)
	jmp *jump_slot(%rip)
back:	dec %r12d
	jz done
	protect_page call_slot, 3	/* PROT_READ | PROT_WRITE */
	lea second_call(%rip), %rax
	mov %rax, call_slot(%rip)
	lea second_jump(%rip), %rax
	mov %rax, jump_slot(%rip)
	protect_page call_slot, 1	/* PROT_READ */
	jmp round
done:	mov %ebx, %edi
	and $0xff, %edi
	mov $60, %eax
	syscall

first_call:
	add $1, %ebx
	ret
second_call:
	add $10, %ebx
	ret
first_jump:
	add $100, %ebx
	jmp back
second_jump:
	add $1000, %ebx
	jmp back

	.section .rodata
	.balign 4096
call_slot:
	.quad first_call
jump_slot:
	.quad first_jump
	.balign 4096
	.section .note.GNU-stack, "", @progbits

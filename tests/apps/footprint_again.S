/* The same 100 lines loaded before a region and again inside it (SSC marks 1 and 2): the
 * region's footprint holds them (a tool that remembers what it marked before the region
 * must forget it there). Then the same lines stored, and 100 lines stored in two pages
 * mapped for the purpose and unmapped before the end (they count all the same). No stack
 * is used; every instruction from _start to code_end runs.
 *   whole run: loads 100 lines in 2 pages, stores 200 lines in 4 pages, 200 lines in all
 *   region:    loads 100 lines in 2 pages, no store */
#include "bare_exit.h"

	.macro load_all
	lea buf(%rip), %rsi
	mov $100, %ecx
1:	mov (%rsi), %rax
	add $64, %rsi
	dec %ecx
	jnz 1b
	.endm

	.text
	.globl _start
_start:
	load_all
	mov $1, %ebx
	.byte 0x64, 0x67, 0x90
	load_all
	mov $2, %ebx
	.byte 0x64, 0x67, 0x90
	lea buf(%rip), %rdi
	mov $100, %ecx
2:	movq %rcx, (%rdi)
	add $64, %rdi
	dec %ecx
	jnz 2b
	/* 100 lines stored in two pages mapped for the purpose, unmapped before the end. */
	mov $9, %eax		/* mmap(NULL, 8192, PROT_READ|PROT_WRITE, MAP_PRIVATE|MAP_ANONYMOUS) */
	xor %edi, %edi
	mov $8192, %esi
	mov $3, %edx
	mov $0x22, %r10d
	mov $-1, %r8
	xor %r9d, %r9d
	syscall
	mov %rax, %rdi
	mov %rax, %rbx
	mov $100, %ecx
3:	movq %rcx, (%rdi)
	add $64, %rdi
	dec %ecx
	jnz 3b
	mov $11, %eax		/* munmap */
	mov %rbx, %rdi
	mov $8192, %esi
	syscall
	exit_and_end_code

	.bss
	.p2align 12
buf:	.space 8192
	.section .note.GNU-stack, "", @progbits

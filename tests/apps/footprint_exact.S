/* A program whose data footprint is known exactly. Each buffer has pages of its own.
 *   stores: A 100 lines (2 pages), E 2, F 5, G 1 (1 page each)          = 108 lines, 5 pages
 *   loads:  B 200 lines (4 pages), C 3, D 2, E 1, F 5, G 1, H 1, I 1     = 214 lines, 11 pages
 *   data:   315 distinct lines in 13 pages
 * The program uses no stack but the one it points into E at the end.
 * Between SSC marks 1 and 2 only the stores to A run: 100 lines in 2 pages, and 100
 * iterations of the 4-instruction loop. Every instruction from _start to code_end runs. */
#include "bare_exit.h"

	.text
	.p2align 12
	.globl _start
_start:
	/* Stores to A: every 64th byte of 100 lines, inside SSC region 1..2. */
	lea bufA(%rip), %rdi
	mov $100, %ecx
	mov $1, %ebx
	.byte 0x64, 0x67, 0x90
1:	movq %rcx, (%rdi)
	add $64, %rdi
	dec %ecx
	jnz 1b
	mov $2, %ebx
	.byte 0x64, 0x67, 0x90
	/* Loads from B: 200 lines. */
	lea bufB(%rip), %rsi
	mov $200, %ecx
2:	mov (%rsi), %rax
	add $64, %rsi
	dec %ecx
	jnz 2b
	/* An unaligned load across two lines of C. */
	mov bufC+60(%rip), %rax
	/* REP MOVSB: 128 bytes from D (2 lines read) to E (2 lines written). */
	lea bufD(%rip), %rsi
	lea bufE(%rip), %rdi
	mov $128, %ecx
	rep movsb
	/* REPNE SCASB over the 300 'a's and the NUL of F: 301 bytes, 5 lines read. */
	lea bufF(%rip), %rdi
	mov $300, %ecx
	mov $0x61, %al
	rep stosb		/* 300 bytes of F written: 5 lines */
	lea bufF(%rip), %rdi
	xor %eax, %eax
	mov $-1, %rcx
	repne scasb
	/* Read-modify-write on G: one line read and written. */
	addq $1, bufG(%rip)
	/* %fs-relative load: line 1 of H. */
	mov $158, %eax		/* arch_prctl */
	mov $0x1002, %edi	/* ARCH_SET_FS */
	lea bufH+64(%rip), %rsi
	syscall
	mov %fs:8, %rax
	/* RIP-relative load from I. */
	mov bufI(%rip), %rax
	/* XLAT reads %rbx + %al: line 3 of C, which nothing else touches. */
	lea bufC(%rip), %rbx
	mov $200, %eax
	xlat
	/* A push writes below the stack pointer, a pop reads there: line 1 of E (already
	 * written by the REP MOVSB; a push marked at the stack pointer itself would add line
	 * 2), read for the first time. */
	lea bufE+128(%rip), %rsp
	push %rax
	pop %rax
	exit_and_end_code

	.bss
	.p2align 12
bufA:	.space 8192
bufB:	.space 16384
bufC:	.space 4096
bufD:	.space 4096
bufE:	.space 4096
bufF:	.space 4096
bufG:	.space 4096
bufH:	.space 4096
bufI:	.space 4096
	.section .note.GNU-stack, "", @progbits

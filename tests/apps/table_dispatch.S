/* A bytecode interpreter whose handlers dispatch through tables in a read-only page,
 * indexed by a byte (jit/table_jump.c), in the forms the JIT takes: through a table of
 * handler addresses, `mov T(,%rax,8),%rax; jmp *%rax`, `mov T(,%rdx,8),%rcx; jmp *%rcx` and
 * `jmp *T(,%rcx,8)`; through a table of offsets from its start (as PIE code's switches),
 * `lea T(%rip),%rcx; ... movslq (%rcx,%rdx,4),%rax; add %rcx,%rax; jmp *%rax`.
 * The program runs ROUNDS times; then the tables' page is made writable, opcode 2 pointed
 * at another handler in both tables, the page made read-only again, and the program runs
 * once more: the jumps must reach the new handler. Exit status: the sum the handlers made,
 * & 0xff.
 * ROUNDS=1: (1 + 10 + 100 + 1 + 10 + 7) + (1 + 1000 + 100 + 1 + 1000 + 7) = 2238, exit 190
 * (2 if the last round still went to the first handlers). Instructions: 36 * ROUNDS + 69. */
#ifndef ROUNDS
#define ROUNDS 1
#endif
/* CARRY: two handlers add with the carry the jump before them left, so that the flags are
 * live where their blocks start (the count update then goes into the jump's translation). */
#ifdef CARRY
#define ADD adc
#else
#define ADD add
#endif
	.text
	.globl _start
_start:
	xor %ebx, %ebx
	xor %r13d, %r13d	/* the table changed */
	mov $ROUNDS, %r12d
round:	lea program(%rip), %rsi
	movzbl (%rsi), %eax
	inc %rsi
	mov table(,%rax,8), %rax
	jmp *%rax
	/* Each handler adds its amount and dispatches the next opcode. */
add_1:	add $1, %ebx
	lea offsets(%rip), %rcx
	movzbl (%rsi), %edx
	inc %rsi
	movslq (%rcx,%rdx,4), %rax
	add %rcx, %rax
	jmp *%rax
add_10:	add $10, %ebx
	movzbl (%rsi), %edx
	lea 1(%rsi), %rsi
	mov table(,%rdx,8), %rcx
	jmp *%rcx
add_100:
	ADD $100, %ebx
	movzbl (%rsi), %ecx
	inc %rsi
	jmp *table(,%rcx,8)
add_1000:
	ADD $1000, %ebx
	movzbl (%rsi), %eax
	inc %rsi
	mov table(,%rax,8), %rax
	jmp *%rax
add_7:	add $7, %ebx	/* (opcode 0: the end of the program) */
	dec %r12d
	jnz round
	test %r13d, %r13d
	jnz done
	inc %r13d
	mov $3, %edx		/* PROT_READ | PROT_WRITE */
	call protect_table
	lea add_1000(%rip), %rax
	mov %rax, table + 2 * 8(%rip)
	lea offsets(%rip), %rcx
	sub %rcx, %rax
	mov %eax, offsets + 2 * 4(%rip)
	mov $1, %edx		/* PROT_READ */
	call protect_table
	mov $1, %r12d
	jmp round
done:	mov %ebx, %edi
	and $0xff, %edi
	mov $60, %eax
	syscall
bad:	mov $99, %edi		/* an opcode without a handler */
	mov $60, %eax
	syscall

protect_table:			/* mprotect(the tables' page, 4096, %edx) */
	lea table(%rip), %rdi
	mov $4096, %esi
	mov $10, %eax
	syscall
	ret

	.section .rodata
program:
	.byte 1, 2, 3, 1, 2, 0
	.balign 4096
table:
	.quad add_7, add_1, add_10, add_100
	.rept 252
	.quad bad
	.endr
offsets:
	.long add_7 - offsets, add_1 - offsets, add_10 - offsets, add_100 - offsets
	.rept 252
	.long bad - offsets
	.endr
	.balign 4096
	.section .note.GNU-stack, "", @progbits

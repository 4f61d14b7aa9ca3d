/* A block whose status flags are live at its start (its adc reads the carry of the cmp
 * before it) and whose first instruction writes %rax whole without reading it: under
 * -icount its count update goes through %rax there instead of borrowing it through the
 * thread block (jit/count_place.h). The carries must reach the sum (exit status 19, as
 * natively) and the count must be exact (7 002 instructions). */
	.text
	.globl _start
_start:
	xor %edi, %edi
	mov $1000, %ecx
loop:	cmp $500, %ecx		/* CF: ecx below 500 */
	je skip
	mov %rcx, %rax		/* the count update goes through %rax before this */
	adc $0, %rax
	add %rax, %rdi
skip:	dec %ecx
	jnz loop
	and $0xff, %edi
	mov $60, %eax
	syscall
	.section .note.GNU-stack, "", @progbits

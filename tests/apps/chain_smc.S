/* A block rewrites the block it falls through into, inside one chain of the JIT (the
 * branch between them not taken): the write retires the translation, and the thread must
 * leave where its block ends, to run the new code. Exits 3 when the rewritten `mov` ran,
 * 1 when the old translation of it did. */
#include "page_protect.inc"
	.text
	.globl _start
	.p2align 12
_start:
	make_page_rwx run	/* the code's page becomes writable */
	xor %ecx, %ecx
	jmp run			/* so that run starts its own fragment */
	.p2align 6
run:	movb $3, patched+1(%rip) /* mov $1,%edi  ->  mov $3,%edi */
	test %ecx, %ecx
	jnz done		/* not taken: falls through into the chained block */
patched:
	mov $1, %edi
done:	mov $60, %eax
	syscall
	.section .note.GNU-stack, "", @progbits

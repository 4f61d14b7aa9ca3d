/* A program of two phases, the second past 2^31 instructions (tests/sim/pinpoints.sh):
 * 2.2 billion instructions of a counting loop, then 300 million of an adding one, then
 * exit. With 100-million-instruction intervals, intervals 0-21 are the first phase and
 * 22-24 the second. */
	.text
	.globl _start
_start:
	mov $1100000000, %ecx		/* 2 x 1.1e9 */
1:	dec %ecx
	jnz 1b
	mov $100000000, %ecx		/* 3 x 1e8 */
2:	add %rax, %rbx
	dec %ecx
	jnz 2b
	mov $60, %eax
	xor %edi, %edi
	syscall
	.section .note.GNU-stack, "", @progbits

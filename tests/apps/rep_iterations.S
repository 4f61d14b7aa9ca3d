/* REP string instructions whose iterations hold instruction-count boundaries: the count
 * of each instruction is known exactly (a REP string instruction counts once per
 * iteration). Exits with the low byte of %rcx after `repe cmpsb` (40000 - 30001 = 9999:
 * 15), so that a run that splits it wrongly shows.
 *   instructions 1-3        set up
 *   4 - 100003              rep stosb, 100000 iterations
 *   100004 - 100006         set up
 *   100007 - 150006         rep movsb, 50000 iterations
 *   150007 - 150010         set up (a difference at byte 30000)
 *   150011 - 180011         repe cmpsb, 30001 iterations (ends at the difference)
 *   180012 - 180014         exit
 */
	.text
	.globl _start
_start:
	lea dst(%rip), %rdi
	mov $100000, %ecx
	mov $0x5a, %eax
	.globl fill
fill:	rep stosb
	lea dst(%rip), %rsi
	lea copy(%rip), %rdi
	mov $50000, %ecx
	.globl move
move:	rep movsb
	lea dst(%rip), %rsi
	lea copy(%rip), %rdi
	movb $1, copy+30000(%rip)
	mov $40000, %ecx
	.globl compare
compare: repe cmpsb
	mov %ecx, %edi
	mov $60, %eax
	syscall
	.bss
dst:	.space 100000
copy:	.space 100000
	.section .note.GNU-stack, "", @progbits

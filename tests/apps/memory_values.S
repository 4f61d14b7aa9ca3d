/* Memory operands with known values, for the value profilers' memory values and addresses
 * (tests/vprof/memory_values.sh). The loop runs 10 times; each mv_* instruction loads or
 * stores the same value every time (in the comment: operand bytes, zero-extended):
 *   mv_load8 0x1122334455667788 (its base register is overwritten by the load)
 *   mv_load1 0x77   mv_load2 0x5566   mv_load4 0x11223344
 *   mv_store8 0xabcdef   mv_rmw 0xabcdf4 (add to memory: the sum stored)
 *   mv_push 0x1234   mv_pop 0x1234   mv_store1 0x5a
 * Values that cannot be captured: mv_call (a call ends its block), mv_rep (a REP string
 * instruction); mv_rep copies 16 bytes from data to scratch+16, mv_rep_none none (rcx 0). */
	.text
	.globl _start
_start:
	mov $10, %r12d
loop:
	lea data(%rip), %rax
	.globl mv_load8
mv_load8:
	mov (%rax), %rax
	lea data(%rip), %rsi
	.globl mv_load1
mv_load1:
	movzbl 1(%rsi), %ecx
	.globl mv_load2
mv_load2:
	movswl 2(%rsi), %ecx
	.globl mv_load4
mv_load4:
	mov 4(%rsi), %ecx
	lea scratch(%rip), %rdx
	mov $0xabcdef, %ecx
	.globl mv_store8
mv_store8:
	mov %rcx, (%rdx)
	.globl mv_rmw
mv_rmw:
	addq $5, (%rdx)
	.globl mv_push
mv_push:
	push $0x1234
	.globl mv_pop
mv_pop:
	pop %rbx
	mov $0x5a, %bl
	.globl mv_store1
mv_store1:
	mov %bl, 8(%rdx)
	.globl mv_call
mv_call:
	call function
	lea data(%rip), %rsi
	lea scratch+16(%rip), %rdi
	mov $16, %ecx
	.globl mv_rep
mv_rep:
	rep movsb
	xor %ecx, %ecx
	.globl mv_rep_none
mv_rep_none:
	rep movsb
	dec %r12d
	jnz loop
	mov $60, %eax
	xor %edi, %edi
	syscall

function:
	ret

	.data
	.p2align 4
data:
	.quad 0x1122334455667788, 0x99aabbccddeeff00

	.bss
	.p2align 4
scratch:
	.skip 32

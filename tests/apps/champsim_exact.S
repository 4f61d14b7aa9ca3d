/* A program whose ChampSim trace is known record by record (tests/sim/champsim_exact.sh):
 * 37 instructions: a loop, loads and stores, the stack, a REP string instruction, a call
 * and its return, an %fs load between a flag-setting compare and the branch that tests
 * it, an indirect jump, a direct one, an indirect call, jrcxz and loop (the branches that
 * test %rcx), system calls. */
	.text
	.globl _start
_start:
	lea stack_top(%rip), %rsp
	mov $2, %ecx
1:	dec %ecx
	jnz 1b			/* taken, then not */
	lea buf(%rip), %rdi
	movq $5, (%rdi)
	add 8(%rdi), %rax
	push %rax
	pop %rbx
	mov $2, %ecx
	rep stosb		/* two iterations: buf, buf + 1 */
	call leaf
	mov $158, %eax		/* arch_prctl(ARCH_SET_FS, buf) */
	mov $0x1002, %edi
	lea buf(%rip), %rsi
	syscall
	cmp %rax, %rax		/* ZF = 1 */
	mov %fs:16, %rdx	/* the trace computes %fs + 16 with the flags live */
	jz 3f
	ud2
3:	lea 2f(%rip), %rax
	jmp *%rax
2:	jmp 4f			/* a direct jump */
	ud2
4:	lea leaf(%rip), %rbx
	call *%rbx		/* an indirect call */
	xor %ecx, %ecx
	jrcxz 5f		/* taken: %rcx is 0 */
	ud2
5:	mov $2, %ecx
6:	loop 6b			/* taken, then not */
	xor %edi, %edi
	mov $60, %eax
	syscall
leaf:
	ret
	.bss
	.balign 64
	.globl buf
buf:	.space 64
	.space 4096
	.globl stack_top
stack_top:
	.section .note.GNU-stack, "", @progbits

/* Two `cpuid` leaves (0, with ECX left as whatever was there, which it ignores; 7/0), and
 * leaf 1 (whose EBX names the CPU: its initial APIC id) on CPU 0 and on CPU 1 (the thread
 * moved there by sched_setaffinity; a machine of one CPU stays on 0), written raw to
 * stdout, then the program once more by execve of /proc/self/exe (with an argument, and
 * other values in ECX): under the JIT the second process answers all four from the table
 * the first one left in the run's session directory (jit/cpuid_table.h), leaf 1 per CPU,
 * and every byte is as natively. */
/* The four registers a cpuid wrote, at answers + at. */
	.macro store_answer at
	lea answers(%rip), %rdi
	mov %eax, \at(%rdi)
	mov %ebx, \at+4(%rdi)
	mov %ecx, \at+8(%rdi)
	mov %edx, \at+12(%rdi)
	.endm

/* Leaf 1 on CPU `cpu` (or where the thread is, if the machine has no such CPU). */
	.macro leaf_one_on cpu, at
	movq $(1 << \cpu), cpu_mask(%rip)
	mov $203, %eax			/* sched_setaffinity(0, 8, &cpu_mask) */
	xor %edi, %edi
	mov $8, %esi
	lea cpu_mask(%rip), %rdx
	syscall
	mov $1, %eax
	cpuid
	store_answer \at
	.endm

	.text
	.globl _start
_start:
	mov (%rsp), %r12		/* argc */
	lea 8(%rsp), %r13		/* argv */
	lea 16(%rsp,%r12,8), %r14	/* envp */
	mov %r12, %rcx
	imul $0x1111, %ecx		/* garbage, another in the second process */
	xor %eax, %eax
	cpuid
	store_answer 0
	mov $7, %eax
	xor %ecx, %ecx
	cpuid
	store_answer 16
	leaf_one_on 0, 32
	leaf_one_on 1, 48
	mov $1, %eax			/* write(1, answers, 64) */
	mov $1, %edi
	lea answers(%rip), %rsi
	mov $64, %edx
	syscall
	cmp $1, %r12
	jne done
	lea again(%rip), %rax		/* argv: {argv[0], "again", NULL} */
	mov 0(%r13), %rcx
	lea new_argv(%rip), %rsi
	mov %rcx, 0(%rsi)
	mov %rax, 8(%rsi)
	movq $0, 16(%rsi)
	mov $59, %eax			/* execve("/proc/self/exe", new_argv, envp) */
	lea self(%rip), %rdi
	mov %r14, %rdx
	syscall
	mov $60, %eax			/* exit(1): the execve failed */
	mov $1, %edi
	syscall
done:	mov $60, %eax			/* exit(0) */
	xor %edi, %edi
	syscall

	.section .rodata
self:	.asciz "/proc/self/exe"
again:	.asciz "again"

	.bss
	.align 8
answers: .skip 64
new_argv: .skip 24
cpu_mask: .skip 8

	.section .note.GNU-stack, "", @progbits

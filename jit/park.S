/* Waits a copy of the process can resume (jit_fork, jit_thaw_threads).
 *
 * A fork copies memory but only the forking thread: the other app threads of the copy are
 * their thread blocks and stacks, with no kernel thread to run them. A thread that waits in
 * jit_wait_unlocked has all it needs in memory: park_wait saves its caller's registers on
 * its own stack and the stack pointer in its thread block, so a new kernel thread started
 * on that stack (park_revive) runs the wait again from its start, then returns to the
 * caller exactly as the original would have.
 *
 * void park_wait(struct thread_park *p, void (*wait)(void *), void *arg): wait(arg), then
 * the runtime's lock (called without it)
 * long park_revive(unsigned long clone_flags, struct jit_thread *t) */
#include "thread_block.h"

#define SYS_clone 56
#define SYS_arch_prctl 158
#define ARCH_SET_GS 0x1001
#define ARCH_SET_FS 0x1002

	.text
	.globl park_wait
	.type park_wait, @function
park_wait:
	push %rbx
	push %rbp
	push %r12
	push %r13
	push %r14
	push %r15
	sub $8, %rsp			/* aligned for the call */
	mov %rdi, %rbx
	mov %rsi, PARK_WAIT(%rbx)
	mov %rdx, PARK_ARG(%rbx)
	mov %rsp, PARK_RSP(%rbx)
	movl $1, PARK_WAITING(%rbx)	/* stores are seen in order: the frame is complete */
park_resume:
	mov PARK_ARG(%rbx), %rdi
	call *PARK_WAIT(%rbx)
	call runtime_lock		/* still resumable while it waits for the lock too */
	movl $0, PARK_WAITING(%rbx)
	add $8, %rsp
	pop %r15
	pop %r14
	pop %r13
	pop %r12
	pop %rbp
	pop %rbx
	ret
	.size park_wait, . - park_wait

/* The child runs on the parked stack (below the saved frame, where the original thread's
 * deeper calls were), points %gs and %fs at its thread block as runtime code expects,
 * lets park_revived (C) set up its kernel state, then resumes the wait. */
	.globl park_revive
	.type park_revive, @function
park_revive:
	mov %rsi, %r8			/* the child keeps its thread block in r8 */
	mov TB_PARK+PARK_RSP(%rsi), %rsi
	xor %edx, %edx
	xor %r10d, %r10d
	mov $SYS_clone, %eax
	syscall
	test %rax, %rax
	jz 1f
	ret
1:	cmpq $0, TB_USE_FSGSBASE(%r8)
	je 2f
	wrgsbase %r8
	wrfsbase %r8
	jmp 3f
2:	mov $SYS_arch_prctl, %eax
	mov $ARCH_SET_GS, %edi
	mov %r8, %rsi
	syscall
	mov $SYS_arch_prctl, %eax
	mov $ARCH_SET_FS, %edi
	mov %r8, %rsi
	syscall
3:	mov %r8, %rbx
	mov %r8, %rdi
	call park_revived
	lea TB_PARK(%rbx), %rbx
	mov PARK_RSP(%rbx), %rsp
	jmp park_resume
	.size park_revive, . - park_revive

	.section .note.GNU-stack, "", @progbits

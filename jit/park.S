/* Waits a copy of the process can resume (jit_fork, jit_thaw_threads).
 *
 * A fork copies memory but only the forking thread: the other app threads of the copy are
 * their thread blocks and stacks, with no kernel thread to run them. A thread that waits in
 * jit_wait_unlocked has all it needs in memory: park_wait saves its caller's registers on
 * its own stack and the stack pointer in its thread block, so a new kernel thread started
 * on that stack (park_thread_start) runs the wait again from its start, then returns to
 * the caller exactly as the original would have.
 *
 * void park_wait(struct thread_park *p, void (*wait)(void *), void *arg): wait(arg), then
 * the runtime's lock (called without it) */
#include "thread_block.h"

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

/* A frozen thread's new kernel thread starts here (jit_clone_onto, on the parked stack
 * pointer, with %gs and %fs at its block): park_revived (C) sets up its kernel state, then
 * the wait goes on where park_wait saved the frame. */
	.globl park_thread_start
	.type park_thread_start, @function
park_thread_start:
	mov %rdi, %rbx
	sub $8, %rsp			/* aligned for the call */
	call park_revived
	lea TB_PARK(%rbx), %rbx
	mov PARK_RSP(%rbx), %rsp
	jmp park_resume
	.size park_thread_start, . - park_thread_start

	.section .note.GNU-stack, "", @progbits

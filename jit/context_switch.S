/* Leaving and re-entering the code cache.
 *
 * jit_dispatch_entry: reached by `jmp *%gs:TB_ENTER_DISPATCH` from an exit stub, with the
 * exit record in %rax and the app's %rax in TB_SCRATCH_RAX. Saves the complete app state
 * (GPRs, flags, %fs base, xsave area) into the thread block, switches to the runtime stack
 * and %fs, and calls jit_dispatch(thread, record), which picks TB_JUMP_TARGET.
 *
 * jit_resume_cache: restores the app state from the thread block and jumps to
 * TB_JUMP_TARGET. Also the way a thread first enters the cache. */
#include "thread_block.h"

#define ARCH_SET_FS 0x1002
#define SYS_arch_prctl 158

	.text
	.globl jit_dispatch_entry
	.type jit_dispatch_entry, @function
jit_dispatch_entry:
	mov %rax, %gs:TB_EXIT_RECORD
	mov %gs:TB_SCRATCH_RAX, %rax
	mov %rax, %gs:TB_GPR + 0 * 8
	mov %rcx, %gs:TB_GPR + 1 * 8
	mov %rdx, %gs:TB_GPR + 2 * 8
	mov %rbx, %gs:TB_GPR + 3 * 8
	mov %rsp, %gs:TB_GPR + 4 * 8
	mov %rbp, %gs:TB_GPR + 5 * 8
	mov %rsi, %gs:TB_GPR + 6 * 8
	mov %rdi, %gs:TB_GPR + 7 * 8
	mov %r8, %gs:TB_GPR + 8 * 8
	mov %r9, %gs:TB_GPR + 9 * 8
	mov %r10, %gs:TB_GPR + 10 * 8
	mov %r11, %gs:TB_GPR + 11 * 8
	mov %r12, %gs:TB_GPR + 12 * 8
	mov %r13, %gs:TB_GPR + 13 * 8
	mov %r14, %gs:TB_GPR + 14 * 8
	mov %r15, %gs:TB_GPR + 15 * 8
	mov %gs:TB_RT_STACK_TOP, %rsp
	pushfq
	popq %gs:TB_RFLAGS
	/* The runtime's C code runs with none of the app's flags: DF (string direction), AC
	 * (alignment checks: misaligned loads would fault) and TF (single-stepping) clear. */
	pushq $2
	popfq
	cmpq $0, %gs:TB_USE_FSGSBASE
	je 1f
	rdfsbase %rax
	mov %rax, %gs:TB_APP_FS
	mov %gs:TB_SELF, %rax
	wrfsbase %rax
	jmp 2f
1:	/* Without FSGSBASE the app cannot change %fs behind our back: TB_APP_FS is exact. */
	mov $SYS_arch_prctl, %eax
	mov $ARCH_SET_FS, %edi
	mov %gs:TB_SELF, %rsi
	syscall
2:	mov %gs:TB_SELF, %rdi
	mov $-1, %eax
	mov $-1, %edx
	/* xsaveopt skips the components untouched since our last xrstor from this area. */
	cmpq $0, %gs:TB_USE_XSAVEOPT
	je 3f
	xsaveopt64 TB_XSAVE_AREA(%rdi)
	jmp 4f
3:	xsave64 TB_XSAVE_AREA(%rdi)
4:	mov %gs:TB_EXIT_RECORD, %rsi
	call jit_dispatch
	/* fall through */
	.size jit_dispatch_entry, . - jit_dispatch_entry

	.globl jit_resume_cache
	.type jit_resume_cache, @function
jit_resume_cache:
	mov %gs:TB_RT_STACK_TOP, %rsp
	mov %gs:TB_SELF, %rdi
	mov $-1, %eax
	mov $-1, %edx
	xrstor64 TB_XSAVE_AREA(%rdi)
	cmpq $0, %gs:TB_USE_FSGSBASE
	je 1f
	mov %gs:TB_APP_FS, %rax
	wrfsbase %rax
	jmp 2f
1:	mov $SYS_arch_prctl, %eax
	mov $ARCH_SET_FS, %edi
	mov %gs:TB_APP_FS, %rsi
	syscall
2:	pushq %gs:TB_RFLAGS
	popfq
	mov %gs:TB_GPR + 1 * 8, %rcx
	mov %gs:TB_GPR + 2 * 8, %rdx
	mov %gs:TB_GPR + 3 * 8, %rbx
	mov %gs:TB_GPR + 5 * 8, %rbp
	mov %gs:TB_GPR + 6 * 8, %rsi
	mov %gs:TB_GPR + 7 * 8, %rdi
	mov %gs:TB_GPR + 8 * 8, %r8
	mov %gs:TB_GPR + 9 * 8, %r9
	mov %gs:TB_GPR + 10 * 8, %r10
	mov %gs:TB_GPR + 11 * 8, %r11
	mov %gs:TB_GPR + 12 * 8, %r12
	mov %gs:TB_GPR + 13 * 8, %r13
	mov %gs:TB_GPR + 14 * 8, %r14
	mov %gs:TB_GPR + 15 * 8, %r15
	mov %gs:TB_GPR + 4 * 8, %rsp
	mov %gs:TB_GPR + 0 * 8, %rax
	jmp *%gs:TB_JUMP_TARGET
	.size jit_resume_cache, . - jit_resume_cache

/* jit_ibl_miss: where an indirect branch lands when the table has no fragment for its
 * target (or a fragment's entry check finds another target). %rcx holds the app target;
 * the app's %r11 and %rcx are in their scratch slots. Leaves through the dispatcher with
 * the shared indirect exit record. */
	.globl jit_ibl_miss
	.type jit_ibl_miss, @function
jit_ibl_miss:
	mov %rcx, %gs:TB_IBL_TARGET
	mov %gs:TB_SCRATCH_RCX, %rcx
	mov %gs:TB_SCRATCH_REG, %r11
	mov %rax, %gs:TB_SCRATCH_RAX
	lea translate_indirect_exit(%rip), %rax
	jmp jit_dispatch_entry
	.size jit_ibl_miss, . - jit_ibl_miss

/* long jit_clone_onto(unsigned long flags, struct jit_thread *t, int *ptid, int *ctid,
 *                     uint64_t stack, void (*start)(struct jit_thread *t))
 * clone(2) of a kernel thread that runs as t: on `stack`, with %gs and %fs pointing at its
 * thread block (as runtime code expects), it calls start(t), which never returns. The
 * parent gets the kernel's result. */
	.globl jit_clone_onto
	.type jit_clone_onto, @function
jit_clone_onto:
	mov %r8, %rax			/* stack */
	mov %rsi, %r8			/* the child keeps t in r8 and start in r9 */
	mov %rcx, %r10			/* ctid */
	mov %rax, %rsi
	mov $56, %eax			/* SYS_clone */
	syscall
	test %rax, %rax
	jz 1f
	ret
1:	cmpq $0, TB_USE_FSGSBASE(%r8)
	je 2f
	wrgsbase %r8
	wrfsbase %r8
	jmp 3f
2:	mov $SYS_arch_prctl, %eax	/* the syscalls keep r8 and r9 */
	mov $0x1001, %edi		/* ARCH_SET_GS */
	mov %r8, %rsi
	syscall
	mov $SYS_arch_prctl, %eax
	mov $ARCH_SET_FS, %edi
	mov %r8, %rsi
	syscall
3:	mov %r8, %rdi
	call *%r9
	ud2
	.size jit_clone_onto, . - jit_clone_onto

	.section .note.GNU-stack, "", @progbits

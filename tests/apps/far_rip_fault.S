/* A RIP-relative load of a page almost 2 GiB above the code, out of rel32 reach from a
 * code cache placed below the code (jit/code_cache.c): the translation borrows a register
 * for the address (%rax here, the first one the instruction does not use). The page is
 * mapped PROT_NONE, so the load faults once; the SIGSEGV handler checks that the state it
 * is given holds the app's %rax, not the borrowed address, and makes the page readable;
 * the load runs again and %rax must still be the app's. Exit 0; 1: %rax changed across
 * the fault; 2: the handler saw another %rax (3: both); 77 (skipped): the page could not
 * be reserved. Built as a static PIE, so that it is loaded high, where the cache goes
 * below it. */
#include "segv_handler.inc"
	.set far_page, page_anchor + 0x7f000000

	.text
	.balign 4096
page_anchor:
	.globl _start
_start:
	lea far_page(%rip), %rdi	/* mmap(far_page, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE) */
	mov $4096, %esi
	xor %edx, %edx
	mov $0x100022, %r10d
	mov $-1, %r8
	xor %r9d, %r9d
	mov $9, %eax
	syscall
	lea far_page(%rip), %rdi
	cmp %rdi, %rax
	jne no_page

	set_segv_handler on_segv, restorer, action

	mov $12345, %eax
	mov far_page + 8(%rip), %rdx	/* faults once */
	xor %edi, %edi
	cmp $12345, %rax
	je done
	mov $1, %edi
done:	or seen(%rip), %edi
	mov $60, %eax
	syscall
no_page:
	mov $77, %edi
	mov $60, %eax
	syscall

/* The kernel's ucontext: uc_mcontext.gregs at 40, REG_RAX the 14th. */
on_segv:
	cmpq $12345, 40 + 13 * 8(%rdx)
	je 1f
	movl $2, seen(%rip)
1:	lea far_page(%rip), %rdi	/* mprotect(far_page, 4096, PROT_READ) */
	mov $4096, %esi
	mov $1, %edx
	mov $10, %eax
	syscall
	ret
restorer:
	mov $15, %eax			/* rt_sigreturn */
	syscall

	.data
seen:	.long 0
	.bss
action:	.zero 32
	.section .note.GNU-stack, "", @progbits

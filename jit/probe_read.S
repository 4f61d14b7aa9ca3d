/* Copies app memory that may not be readable, without a system call: a fault in the copy
 * resumes at probe_read_failed (signals.c asks probe_read_resume_pc), %eax set to the
 * fault's probe_read_failure.
 *
 * int probe_read(void *dst, uint64_t src, size_t len) (probe_read.h): 0, or the failure */
	.text
	.globl probe_read
	.type probe_read, @function
	.globl probe_read_load
	.globl probe_read_failed
probe_read:
	mov %rdx, %rcx
	xor %eax, %eax
probe_read_load:
	rep movsb		/* (one instruction: a fault anywhere in it stops here) */
	ret
probe_read_failed:
	ret
	.size probe_read, . - probe_read

	.section .note.GNU-stack, "", @progbits

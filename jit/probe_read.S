/* Reads one byte of app memory that may not be readable, without a system call: a fault
 * at the load resumes at probe_read_failed (signals.c asks probe_read_resume_pc), %eax set
 * to the fault's probe_read_failure.
 *
 * int probe_read_byte(uint64_t addr) (probe_read.h) */
	.text
	.globl probe_read_byte
	.type probe_read_byte, @function
	.globl probe_read_load
	.globl probe_read_failed
probe_read_byte:
probe_read_load:
	movzbl (%rdi), %eax
	ret
probe_read_failed:
	ret
	.size probe_read_byte, . - probe_read_byte

	.section .note.GNU-stack, "", @progbits

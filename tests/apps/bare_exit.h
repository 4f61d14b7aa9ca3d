/* For the programs without libraries (the .S files here): exit(0), then code_end, where the
 * code whose every byte runs ends (the footprint tests count its lines). */
#ifndef BARE_EXIT_H
#define BARE_EXIT_H

	.macro exit_and_end_code
	mov $60, %eax
	xor %edi, %edi
	syscall
	.globl code_end
code_end:
	.endm

#endif

/* SSC marks: the two-instruction no-op the controller's `ssc:<hex>` alarm recognises
 * (mov $imm32,%ebx followed by the prefixed nop 64 67 90). */
#ifndef SSC_MARK_H
#define SSC_MARK_H

#define SSC_MARK(imm)                                                                              \
	__asm__ volatile("mov %0, %%ebx\n\t.byte 0x64, 0x67, 0x90" ::"i"(imm) : "rbx", "memory")

#endif

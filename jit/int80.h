/* int $0x80 from 64-bit code: Linux runs it as a 32-bit (i386) system call. */
#ifndef JIT_INT80_H
#define JIT_INT80_H

#include "thread_block.h"

/* Runs the i386 system call in t's saved registers (number in eax; ebx, ecx, edx, esi, edi,
 * ebp its arguments, 32 bits each) as its x86-64 twin through syscall_dispatch, so that it is
 * emulated, recorded and replayed as any syscall; the result in rax, every other register
 * as it was. Only calls whose 32-bit form means the same as the 64-bit one with its
 * arguments zero-extended are run; any other answers ENOSYS, as a kernel without them.
 * t->app_pc: after the instruction (back on it for a restart). */
void int80_dispatch(struct jit_thread *t);

#endif

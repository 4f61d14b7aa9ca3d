/* Memory operands as the code inserted before an instruction sees them: whether the
 * instruction reaches memory through them as data, and their address computed from the
 * app's registers (for memory marks and trace records). */
#ifndef JIT_OPERAND_ADDRESS_H
#define JIT_OPERAND_ADDRESS_H

#include <stdbool.h>
#include <stdint.h>

#include "block.h"
#include "instrument.h"
#include "x86_emit.h"

/* A general-purpose register's hardware number (JIT_GPR_*) from any of its names (%al,
 * %eax, %rax: 0), -1 for any other register (and none); and the 64-bit name of a number. */
int gpr_number(ZydisRegister r);
ZydisRegister gpr_register(int number);

/* An operand the instruction reads or writes memory through (not %gs, the runtime's). */
bool data_operand(const ZydisDecodedOperand *op);

/* The operand's displacement, with jit_push_displacement's part. */
int64_t operand_displacement(const struct block_insn *bi, const ZydisDecodedOperand *op);

/* The app address of bi's RIP-relative operand with displacement disp. */
uint64_t rip_relative_address(const struct block_insn *bi, int64_t disp);

/* Encodes lea of the operand's address with displacement disp (its base and index as the
 * app's registers hold them) into register `dest` (JIT_GPR_*). False when no lea can
 * express it. */
bool encode_operand_lea(const ZydisDecodedOperand *op, int64_t disp, int dest, uint8_t *lea,
			ZyanUSize *len);

/* %rcx = the operand's address plus `extra`, from the app's registers (%rax and %rcx are
 * brought back from their scratch slots first when the address is made of them; %rax is
 * clobbered or not). False when no lea can compute it: nothing is emitted then. */
bool emit_operand_address(struct emitter *e, const struct block_insn *bi,
			  const ZydisDecodedOperand *op, int64_t extra);

#endif

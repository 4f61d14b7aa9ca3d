#include "operand_address.h"

#include <string.h>

#include "thread_block.h"

bool jit_insn_accesses_memory(const ZydisDecodedInstruction *insn)
{
	switch (insn->meta.category) {
	case ZYDIS_CATEGORY_NOP:
	case ZYDIS_CATEGORY_PREFETCH:
	case ZYDIS_CATEGORY_WIDENOP:
		return false;
	default:
		break;
	}
	switch (insn->mnemonic) {
	case ZYDIS_MNEMONIC_CLFLUSH:
	case ZYDIS_MNEMONIC_CLFLUSHOPT:
	case ZYDIS_MNEMONIC_CLWB:
	case ZYDIS_MNEMONIC_CLDEMOTE:
		return false;
	default:
		return true;
	}
}

bool data_operand(const ZydisDecodedOperand *op)
{
	return op->type == ZYDIS_OPERAND_TYPE_MEMORY && op->mem.type == ZYDIS_MEMOP_TYPE_MEM &&
	       (op->actions & (ZYDIS_OPERAND_ACTION_MASK_READ | ZYDIS_OPERAND_ACTION_MASK_WRITE)) &&
	       op->mem.segment != ZYDIS_REGISTER_GS;
}

int64_t jit_push_displacement(const ZydisDecodedInstruction *insn, const ZydisDecodedOperand *op)
{
	if (op->visibility != ZYDIS_OPERAND_VISIBILITY_HIDDEN ||
	    op->mem.base != ZYDIS_REGISTER_RSP || !(op->actions & ZYDIS_OPERAND_ACTION_MASK_WRITE))
		return 0;
	switch (insn->mnemonic) {
	case ZYDIS_MNEMONIC_PUSH:
	case ZYDIS_MNEMONIC_PUSHF:
	case ZYDIS_MNEMONIC_PUSHFQ:
	case ZYDIS_MNEMONIC_CALL:
	case ZYDIS_MNEMONIC_ENTER:
		return -(int64_t)(op->size / 8);
	default:
		return 0;
	}
}

int64_t operand_displacement(const struct block_insn *bi, const ZydisDecodedOperand *op)
{
	return op->mem.disp.value + jit_push_displacement(&bi->insn, op);
}

/* Whether the memory operand's base or index is (a part of) reg64. */
static bool names_gpr(const ZydisDecodedOperand *op, ZydisRegister reg64)
{
	return ZydisRegisterGetLargestEnclosing(ZYDIS_MACHINE_MODE_LONG_64, op->mem.base) ==
		   reg64 ||
	       ZydisRegisterGetLargestEnclosing(ZYDIS_MACHINE_MODE_LONG_64, op->mem.index) == reg64;
}

int gpr_number(ZydisRegister r)
{
	ZydisRegister r64 = ZydisRegisterGetLargestEnclosing(ZYDIS_MACHINE_MODE_LONG_64, r);
	return ZydisRegisterGetClass(r64) == ZYDIS_REGCLASS_GPR64 ? ZydisRegisterGetId(r64) : -1;
}

ZydisRegister gpr_register(int number)
{
	static const ZydisRegister regs[16] = {
	    ZYDIS_REGISTER_RAX, ZYDIS_REGISTER_RCX, ZYDIS_REGISTER_RDX, ZYDIS_REGISTER_RBX,
	    ZYDIS_REGISTER_RSP, ZYDIS_REGISTER_RBP, ZYDIS_REGISTER_RSI, ZYDIS_REGISTER_RDI,
	    ZYDIS_REGISTER_R8,	ZYDIS_REGISTER_R9,  ZYDIS_REGISTER_R10, ZYDIS_REGISTER_R11,
	    ZYDIS_REGISTER_R12, ZYDIS_REGISTER_R13, ZYDIS_REGISTER_R14, ZYDIS_REGISTER_R15};
	return regs[number];
}

bool encode_operand_lea(const ZydisDecodedOperand *op, int64_t disp, int dest, uint8_t *lea,
			ZyanUSize *len)
{
	ZydisEncoderRequest req;
	memset(&req, 0, sizeof req);
	req.machine_mode = ZYDIS_MACHINE_MODE_LONG_64;
	req.mnemonic = ZYDIS_MNEMONIC_LEA;
	req.operand_count = 2;
	req.operands[0].type = ZYDIS_OPERAND_TYPE_REGISTER;
	req.operands[0].reg.value = gpr_register(dest);
	req.operands[1].type = ZYDIS_OPERAND_TYPE_MEMORY;
	req.operands[1].mem.base = op->mem.base;
	req.operands[1].mem.index = op->mem.index;
	req.operands[1].mem.scale = op->mem.index == ZYDIS_REGISTER_NONE ? 0 : op->mem.scale;
	req.operands[1].mem.displacement = disp;
	req.operands[1].mem.size = 8;
	return ZYAN_SUCCESS(ZydisEncoderEncodeInstruction(&req, lea, len));
}

uint64_t rip_relative_address(const struct block_insn *bi, int64_t disp)
{
	return bi->pc + bi->insn.length + (uint64_t)disp;
}

bool emit_operand_address(struct emitter *e, const struct block_insn *bi,
			  const ZydisDecodedOperand *op, int64_t extra)
{
	int64_t disp = operand_displacement(bi, op) + extra;
	if (bi->insn.mnemonic == ZYDIS_MNEMONIC_XLAT) { /* %rbx + %al, which Zydis leaves out */
		static const uint8_t rbx_plus_al[] = {
		    0x0f, 0xb6, 0xc8,	    /* movzbl %al,%ecx */
		    0x48, 0x8d, 0x0c, 0x0b, /* lea (%rbx,%rcx),%rcx */
		};
		emit_load_gs(e, JIT_GPR_RAX, TB_SCRATCH_RAX);
		emit_bytes(e, rbx_plus_al, sizeof rbx_plus_al);
		return true;
	}
	if (op->mem.base == ZYDIS_REGISTER_RIP) {
		emit_movabs(e, JIT_GPR_RCX, rip_relative_address(bi, disp));
		return true;
	}
	uint8_t lea[ZYDIS_MAX_INSTRUCTION_LENGTH];
	ZyanUSize len = sizeof lea;
	if (!encode_operand_lea(op, disp, JIT_GPR_RCX, lea, &len))
		return false;
	/* Only the app registers the address is made of (the others may hold our values). */
	if (names_gpr(op, ZYDIS_REGISTER_RAX))
		emit_load_gs(e, JIT_GPR_RAX, TB_SCRATCH_RAX);
	if (names_gpr(op, ZYDIS_REGISTER_RCX))
		emit_load_gs(e, JIT_GPR_RCX, TB_SCRATCH_RCX);
	emit_bytes(e, lea, (unsigned)len);
	if (op->mem.segment == ZYDIS_REGISTER_FS) {
		static const uint8_t add_fs[] = {0x65, 0x48, 0x03, 0x0c,
						 0x25}; /* add %gs:d32,%rcx */
		emit_bytes(e, add_fs, sizeof add_fs);
		emit_u32(e, TB_APP_FS);
	}
	return true;
}

#include "count_place.h"

#include "instrument.h"
#include "operand_address.h"

/* Whether an operand is a register or address an instruction of the list below may take
 * without faulting: general registers and the flags (a mov to or from a control, debug or
 * segment register faults or may), and no memory access unless `memory` (lea's address is
 * none; an access through %gs is the runtime's to rewrite). */
static bool plain_operand(const ZydisDecodedOperand *op, bool memory)
{
	if (op->type == ZYDIS_OPERAND_TYPE_MEMORY)
		return op->mem.type == ZYDIS_MEMOP_TYPE_AGEN ||
		       (memory && op->mem.segment != ZYDIS_REGISTER_GS);
	if (op->type != ZYDIS_OPERAND_TYPE_REGISTER)
		return true;
	switch (ZydisRegisterGetClass(op->reg.value)) {
	case ZYDIS_REGCLASS_GPR8:
	case ZYDIS_REGCLASS_GPR16:
	case ZYDIS_REGCLASS_GPR32:
	case ZYDIS_REGCLASS_GPR64:
	case ZYDIS_REGCLASS_FLAGS:
		return true;
	default:
		return false;
	}
}

/* Instructions of general registers and the flags that cannot fault but through a memory
 * operand (no division, no trap), and with `memory` false, none. */
static bool plain_insn(const struct block_insn *bi, bool memory)
{
	const ZydisDecodedOperand *ops = block_insn_ops(bi);
	for (unsigned k = 0; k < bi->insn.operand_count; k++)
		if (!plain_operand(&ops[k], memory))
			return false;
	switch (bi->insn.mnemonic) {
	case ZYDIS_MNEMONIC_PUSH:
	case ZYDIS_MNEMONIC_POP:
	case ZYDIS_MNEMONIC_MOV:
	case ZYDIS_MNEMONIC_MOVZX:
	case ZYDIS_MNEMONIC_MOVSX:
	case ZYDIS_MNEMONIC_MOVSXD:
	case ZYDIS_MNEMONIC_LEA:
	case ZYDIS_MNEMONIC_ADD:
	case ZYDIS_MNEMONIC_SUB:
	case ZYDIS_MNEMONIC_ADC:
	case ZYDIS_MNEMONIC_SBB:
	case ZYDIS_MNEMONIC_AND:
	case ZYDIS_MNEMONIC_OR:
	case ZYDIS_MNEMONIC_XOR:
	case ZYDIS_MNEMONIC_CMP:
	case ZYDIS_MNEMONIC_TEST:
	case ZYDIS_MNEMONIC_INC:
	case ZYDIS_MNEMONIC_DEC:
	case ZYDIS_MNEMONIC_NEG:
	case ZYDIS_MNEMONIC_NOT:
	case ZYDIS_MNEMONIC_SHL:
	case ZYDIS_MNEMONIC_SHR:
	case ZYDIS_MNEMONIC_SAR:
	case ZYDIS_MNEMONIC_ROL:
	case ZYDIS_MNEMONIC_ROR:
	case ZYDIS_MNEMONIC_IMUL:
	case ZYDIS_MNEMONIC_BSWAP:
	case ZYDIS_MNEMONIC_XCHG:
	case ZYDIS_MNEMONIC_NOP:
	case ZYDIS_MNEMONIC_ENDBR64:
	case ZYDIS_MNEMONIC_SETB:
	case ZYDIS_MNEMONIC_SETBE:
	case ZYDIS_MNEMONIC_SETL:
	case ZYDIS_MNEMONIC_SETLE:
	case ZYDIS_MNEMONIC_SETNB:
	case ZYDIS_MNEMONIC_SETNBE:
	case ZYDIS_MNEMONIC_SETNL:
	case ZYDIS_MNEMONIC_SETNLE:
	case ZYDIS_MNEMONIC_SETNO:
	case ZYDIS_MNEMONIC_SETNP:
	case ZYDIS_MNEMONIC_SETNS:
	case ZYDIS_MNEMONIC_SETNZ:
	case ZYDIS_MNEMONIC_SETO:
	case ZYDIS_MNEMONIC_SETP:
	case ZYDIS_MNEMONIC_SETS:
	case ZYDIS_MNEMONIC_SETZ:
	case ZYDIS_MNEMONIC_CMOVB:
	case ZYDIS_MNEMONIC_CMOVBE:
	case ZYDIS_MNEMONIC_CMOVL:
	case ZYDIS_MNEMONIC_CMOVLE:
	case ZYDIS_MNEMONIC_CMOVNB:
	case ZYDIS_MNEMONIC_CMOVNBE:
	case ZYDIS_MNEMONIC_CMOVNL:
	case ZYDIS_MNEMONIC_CMOVNLE:
	case ZYDIS_MNEMONIC_CMOVNO:
	case ZYDIS_MNEMONIC_CMOVNP:
	case ZYDIS_MNEMONIC_CMOVNS:
	case ZYDIS_MNEMONIC_CMOVNZ:
	case ZYDIS_MNEMONIC_CMOVO:
	case ZYDIS_MNEMONIC_CMOVP:
	case ZYDIS_MNEMONIC_CMOVS:
	case ZYDIS_MNEMONIC_CMOVZ:
		return true;
	default:
		return false;
	}
}

/* The general register the instruction writes whole without reading it (a 64-bit or a
 * zero-extending 32-bit write), or -1. */
static int whole_write(const struct block_insn *bi)
{
	const ZydisDecodedOperand *ops = block_insn_ops(bi);
	int written = -1;
	uint16_t read = 0;
	for (unsigned k = 0; k < bi->insn.operand_count; k++) {
		if (ops[k].type == ZYDIS_OPERAND_TYPE_MEMORY) { /* lea's address */
			int base = gpr_number(ops[k].mem.base),
			    index = gpr_number(ops[k].mem.index);
			read |= (uint16_t)((base >= 0 ? 1u << base : 0) |
					   (index >= 0 ? 1u << index : 0));
		}
		if (ops[k].type != ZYDIS_OPERAND_TYPE_REGISTER)
			continue;
		int id = gpr_number(ops[k].reg.value);
		if (id < 0)
			continue;
		if (ops[k].actions & ZYDIS_OPERAND_ACTION_MASK_READ)
			read |= (uint16_t)(1u << id);
		ZydisRegisterClass cls = ZydisRegisterGetClass(ops[k].reg.value);
		if (ops[k].actions == ZYDIS_OPERAND_ACTION_WRITE &&
		    (cls == ZYDIS_REGCLASS_GPR64 || cls == ZYDIS_REGCLASS_GPR32))
			written = id;
	}
	return written >= 0 && written != JIT_GPR_RSP && !(read & (1u << written)) ? written : -1;
}

bool count_place_find(const struct jit_block *b, bool past_faults, bool ends_in_lookup,
		      struct count_place *out)
{
	if (b->budget_count || b->trace.buffer_slot >= 0 || b->table_counter.table_slot >= 0)
		return false;
	bool after_faults = false;
	for (size_t i = 0; i < b->length; i++) {
		const struct block_insn *bi = &b->insns[i];
		if (bi->callout_count || bi->suppressed || bi->memory_marks_slot >= 0 ||
		    bi->trace_store_count || !instrument_counted(b, i))
			return false;
		if (i > 0 && !block_flags_live_from(b, i)) {
			*out = (struct count_place){i, -1, after_faults, false};
			return true;
		}
		if (i + 1 == b->length && ends_in_lookup && past_faults) {
			*out = (struct count_place){i, -1, true, true};
			return true;
		}
		if (!plain_insn(bi, false)) {
			/* (the block's last instruction may leave it) */
			if (!past_faults || i + 1 == b->length || !plain_insn(bi, true))
				return false;
			after_faults = true;
			continue;
		}
		int reg = whole_write(bi);
		if (reg >= 0) {
			*out = (struct count_place){i, reg, after_faults, false};
			return true;
		}
	}
	return false;
}

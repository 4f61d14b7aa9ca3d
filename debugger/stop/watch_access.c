/* Watchpoints by instrumentation: every instruction that reads or writes memory gets a
 * callout; the callout decodes it again and computes the addresses of its memory operands
 * from the thread's registers (base + index * scale + displacement, %fs's base, a REP
 * string instruction's whole range, the stack slot a push or call writes). A hit arms a
 * one-instruction step, so the stop comes after the access, as with hardware
 * watchpoints. Gathers and scatters (VSIB) are not checked. */
#include "stop_internal.h"

static bool touches_memory(const ZydisDecodedOperand *op)
{
	return op->type == ZYDIS_OPERAND_TYPE_MEMORY && op->mem.type == ZYDIS_MEMOP_TYPE_MEM &&
	       (op->actions & (ZYDIS_OPERAND_ACTION_MASK_READ | ZYDIS_OPERAND_ACTION_MASK_WRITE));
}

bool dbg_insn_accesses_memory(const struct jit_block *b, size_t i)
{
	const ZydisDecodedInstruction *insn = jit_block_insn(b, i);
	const ZydisDecodedOperand *ops = jit_block_operands(b, i);
	for (uint8_t k = 0; k < insn->operand_count; k++)
		if (touches_memory(&ops[k]))
			return true;
	return false;
}

static uint64_t reg_value(const struct jit_thread *t, ZydisRegister r, uint64_t next_pc)
{
	if (r == ZYDIS_REGISTER_NONE)
		return 0;
	if (r == ZYDIS_REGISTER_RIP || r == ZYDIS_REGISTER_EIP)
		return next_pc;
	ZydisRegister full = ZydisRegisterGetLargestEnclosing(ZYDIS_MACHINE_MODE_LONG_64, r);
	if (full < ZYDIS_REGISTER_RAX || full > ZYDIS_REGISTER_R15)
		return 0;
	return jit_thread_gpr(t, ZydisRegisterGetId(full));
}

/* [*start, *start + *len): the bytes operand op of insn accesses. */
static void operand_range(const struct jit_callout *c, const ZydisDecodedInstruction *insn,
			  const ZydisDecodedOperand *op, uint64_t *start, uint64_t *len)
{
	const struct jit_thread *t = c->thread;
	uint64_t next_pc = c->pc + insn->length;
	uint64_t ea = (uint64_t)op->mem.disp.value + reg_value(t, op->mem.base, next_pc) +
		      reg_value(t, op->mem.index, next_pc) * (op->mem.scale ? op->mem.scale : 1);
	if (insn->address_width == 32)
		ea &= 0xffffffffu;
	if (op->mem.segment == ZYDIS_REGISTER_FS) {
		struct jit_regs r;
		jit_thread_get_regs(t, &r);
		ea += r.fs_base;
	}
	uint64_t size = op->size >= 8 ? op->size / 8 : 1;
	if (op->visibility == ZYDIS_OPERAND_VISIBILITY_HIDDEN &&
	    ZydisRegisterGetLargestEnclosing(ZYDIS_MACHINE_MODE_LONG_64, op->mem.base) ==
		ZYDIS_REGISTER_RSP) {
		/* a push or call writes below %rsp, a pop or ret reads at it: both sides */
		*start = ea - size;
		*len = 2 * size;
		return;
	}
	if (jit_insn_is_rep_string(insn)) {
		uint64_t n = jit_thread_gpr(t, JIT_GPR_RCX);
		struct jit_regs r;
		jit_thread_get_regs(t, &r);
		bool down = r.rflags & 0x400; /* DF */
		*len = n * size;
		*start = down ? ea + size - *len : ea;
		return;
	}
	*start = ea;
	*len = size;
}

static bool kind_matches(enum dbg_stop_kind kind, ZydisOperandActions actions)
{
	bool reads = actions & ZYDIS_OPERAND_ACTION_MASK_READ;
	bool writes = actions & ZYDIS_OPERAND_ACTION_MASK_WRITE;
	return kind == DBG_STOP_WATCH ? writes : kind == DBG_STOP_RWATCH ? reads : reads || writes;
}

bool dbg_watch_hit(const struct jit_callout *c, struct dbg_stop *hit)
{
	uint8_t bytes[ZYDIS_MAX_INSTRUCTION_LENGTH];
	size_t n = sizeof bytes;
	uint64_t page_left = 0x1000 - (c->pc & 0xfff);
	if (!jit_read_app_memory(bytes, c->pc, n) &&
	    !(page_left < n && jit_read_app_memory(bytes, c->pc, n = page_left)))
		return false;
	ZydisDecoder decoder;
	ZydisDecoderInit(&decoder, ZYDIS_MACHINE_MODE_LONG_64, ZYDIS_STACK_WIDTH_64);
	ZydisDecodedInstruction insn;
	ZydisDecodedOperand ops[ZYDIS_MAX_OPERAND_COUNT];
	if (ZYAN_FAILED(ZydisDecoderDecodeFull(&decoder, bytes, n, &insn, ops)))
		return false;
	for (uint8_t k = 0; k < insn.operand_count; k++) {
		if (!touches_memory(&ops[k]))
			continue;
		uint64_t start, len;
		operand_range(c, &insn, &ops[k], &start, &len);
		for (uint32_t w = 0; w < dbg.nwatches; w++) {
			const struct watch *wp = &dbg.watches[w];
			if (start >= wp->addr + wp->len || wp->addr >= start + len ||
			    !kind_matches(wp->kind, ops[k].actions))
				continue;
			*hit = (struct dbg_stop){.kind = wp->kind,
						 .signal = 5 /* SIGTRAP */,
						 .watch_addr = start > wp->addr ? start : wp->addr};
			return true;
		}
	}
	return false;
}

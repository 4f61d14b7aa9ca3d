#include "debugtrace_insn.h"

#include <string.h>

#include "instrument.h"

static int8_t gpr_of(ZydisRegister r)
{
	if (r == ZYDIS_REGISTER_NONE)
		return -1;
	ZydisRegister full = ZydisRegisterGetLargestEnclosing(ZYDIS_MACHINE_MODE_LONG_64, r);
	return ZydisRegisterGetClass(full) == ZYDIS_REGCLASS_GPR64
		   ? (int8_t)ZydisRegisterGetId(full)
		   : -1;
}

static void add_written(struct dt_insn *d, ZydisRegister r)
{
	if (r == ZYDIS_REGISTER_RIP || r == ZYDIS_REGISTER_EIP || r == ZYDIS_REGISTER_IP)
		return;
	if (r == ZYDIS_REGISTER_EFLAGS || r == ZYDIS_REGISTER_FLAGS)
		r = ZYDIS_REGISTER_RFLAGS;
	if (gpr_of(r) >= 0)
		r = ZydisRegisterGetLargestEnclosing(ZYDIS_MACHINE_MODE_LONG_64, r);
	else if (r >= ZYDIS_REGISTER_YMM0 && r <= ZYDIS_REGISTER_YMM15)
		r = (ZydisRegister)(ZYDIS_REGISTER_XMM0 + (r - ZYDIS_REGISTER_YMM0));
	else if (r != ZYDIS_REGISTER_RFLAGS &&
		 !(r >= ZYDIS_REGISTER_XMM0 && r <= ZYDIS_REGISTER_XMM15))
		return; /* not shown: segment, x87, mask and the upper vector registers */
	for (uint8_t k = 0; k < d->nwritten; k++)
		if (d->written[k] == r)
			return;
	if (d->nwritten < DT_MAX_WRITTEN)
		d->written[d->nwritten++] = (uint16_t)r;
}

void dt_describe(const struct jit_block *b, size_t i, struct dt_insn *d)
{
	const ZydisDecodedInstruction *insn = jit_block_insn(b, i);
	const ZydisDecodedOperand *ops = jit_block_operands(b, i);
	memset(d, 0, sizeof *d);
	d->pc = jit_block_pc(b, i);
	ZydisFormatter f;
	ZydisFormatterInit(&f, ZYDIS_FORMATTER_STYLE_INTEL);
	if (ZYAN_FAILED(ZydisFormatterFormatInstruction(&f, insn, ops, insn->operand_count_visible,
							d->text, sizeof d->text, d->pc, NULL)))
		memcpy(d->text, "?", 2);
	struct insn_facts facts;
	insn_facts_of(insn, ops, &facts);
	for (uint8_t k = 0; k < facts.nmem; k++) {
		const ZydisDecodedOperand *op = &ops[facts.mem[k].operand];
		struct dt_memop *m = &d->mem[d->nmem++];
		*m = (struct dt_memop){
		    .base = gpr_of(op->mem.base),
		    .index = gpr_of(op->mem.index),
		    .scale = op->mem.scale,
		    .fs = op->mem.segment == ZYDIS_REGISTER_FS,
		    .read = facts.mem[k].read,
		    .write = facts.mem[k].write,
		    .xlat = insn->mnemonic == ZYDIS_MNEMONIC_XLAT,
		    .size = facts.mem[k].size,
		    .disp = op->mem.disp.value + jit_push_displacement(insn, op),
		};
		if (op->mem.base == ZYDIS_REGISTER_RIP)
			m->disp += (int64_t)(d->pc + insn->length);
	}
	for (unsigned k = 0; k < insn->operand_count; k++)
		if (ops[k].type == ZYDIS_OPERAND_TYPE_REGISTER &&
		    (ops[k].actions & ZYDIS_OPERAND_ACTION_MASK_WRITE))
			add_written(d, ops[k].reg.value);
}

uint64_t dt_address(const struct dt_memop *m, const struct jit_regs *r)
{
	if (m->xlat)
		return r->gpr[JIT_GPR_RBX] + (r->gpr[JIT_GPR_RAX] & 0xff);
	uint64_t a = (uint64_t)m->disp;
	if (m->base >= 0)
		a += r->gpr[m->base];
	if (m->index >= 0)
		a += r->gpr[m->index] * m->scale;
	if (m->fs)
		a += r->fs_base;
	return a;
}

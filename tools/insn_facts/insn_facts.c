#include "insn_facts.h"

#include <string.h>

#include "instrument.h"

/* A gather's or scatter's vector index makes one address per element: no single one. */
static bool vector_index(const ZydisDecodedOperand *op)
{
	return op->mem.index >= ZYDIS_REGISTER_XMM0 && op->mem.index <= ZYDIS_REGISTER_ZMM31;
}

bool insn_memop_traced(const ZydisDecodedInstruction *insn, const ZydisDecodedOperand *op)
{
	return op->type == ZYDIS_OPERAND_TYPE_MEMORY && op->mem.type == ZYDIS_MEMOP_TYPE_MEM &&
	       !vector_index(op) &&
	       (op->actions & (ZYDIS_OPERAND_ACTION_MASK_READ | ZYDIS_OPERAND_ACTION_MASK_WRITE)) &&
	       jit_insn_accesses_memory(insn);
}

static enum insn_branch branch_of(const ZydisDecodedInstruction *insn,
				  const ZydisDecodedOperand *ops)
{
	bool relative = ops[0].type == ZYDIS_OPERAND_TYPE_IMMEDIATE && ops[0].imm.is_relative;
	switch (insn->meta.category) {
	case ZYDIS_CATEGORY_COND_BR:
		switch (insn->mnemonic) {
		case ZYDIS_MNEMONIC_JRCXZ:
		case ZYDIS_MNEMONIC_JECXZ:
		case ZYDIS_MNEMONIC_LOOP:
		case ZYDIS_MNEMONIC_LOOPE:
		case ZYDIS_MNEMONIC_LOOPNE:
			return INSN_RCX_BRANCH;
		default:
			return INSN_CONDITIONAL;
		}
	case ZYDIS_CATEGORY_UNCOND_BR:
		return relative ? INSN_JUMP : INSN_JUMP_INDIRECT;
	case ZYDIS_CATEGORY_CALL:
		return relative ? INSN_CALL : INSN_CALL_INDIRECT;
	case ZYDIS_CATEGORY_RET:
		return INSN_RETURN;
	default:
		return INSN_NOT_BRANCH;
	}
}

static void add(uint8_t *list, uint8_t *n, uint8_t reg)
{
	if (!reg)
		return;
	for (uint8_t i = 0; i < *n; i++)
		if (list[i] == reg)
			return;
	if (*n < INSN_MAX_REGS)
		list[(*n)++] = reg;
}

/* The instruction pointer and flags are the control-flow registers, given per branch kind
 * below; every other register comes from the operands. */
static bool control_register(ZydisRegister r)
{
	switch (r) {
	case ZYDIS_REGISTER_RIP:
	case ZYDIS_REGISTER_EIP:
	case ZYDIS_REGISTER_IP:
	case ZYDIS_REGISTER_RFLAGS:
	case ZYDIS_REGISTER_EFLAGS:
	case ZYDIS_REGISTER_FLAGS:
		return true;
	default:
		return false;
	}
}

/* What ChampSim's reader classifies a branch by: a jump writes the instruction pointer
 * and reads no other register when direct; a conditional branch reads the instruction
 * pointer and the flags (or rcx); a call reads and writes the instruction and stack
 * pointers; a return reads the stack pointer and writes both. */
static void control_registers(struct insn_facts *f)
{
	switch (f->branch) {
	case INSN_CONDITIONAL:
	case INSN_RCX_BRANCH:
	case INSN_CALL:
	case INSN_CALL_INDIRECT:
		add(f->src, &f->nsrc, PIN_REG_RIP);
		break;
	default:
		break;
	}
	switch (f->branch) {
	case INSN_CALL:
	case INSN_CALL_INDIRECT:
	case INSN_RETURN:
		add(f->src, &f->nsrc, PIN_REG_RSP);
		add(f->dst, &f->ndst, PIN_REG_RIP);
		add(f->dst, &f->ndst, PIN_REG_RSP);
		break;
	case INSN_NOT_BRANCH:
		break;
	default:
		add(f->dst, &f->ndst, PIN_REG_RIP);
		break;
	}
}

/* The flags last: a short list keeps the registers that carry data first. */
static void flag_registers(struct insn_facts *f, const ZydisDecodedInstruction *insn)
{
	const ZydisAccessedFlags *fl = insn->cpu_flags;
	if (fl && fl->tested)
		add(f->src, &f->nsrc, PIN_REG_RFLAGS);
	if (fl && (fl->modified | fl->set_0 | fl->set_1 | fl->undefined))
		add(f->dst, &f->ndst, PIN_REG_RFLAGS);
}

void insn_facts_of(const ZydisDecodedInstruction *insn, const ZydisDecodedOperand *ops,
		   struct insn_facts *f)
{
	memset(f, 0, sizeof *f);
	f->branch = (uint8_t)branch_of(insn, ops);
	f->pin_is_branch = insn->meta.category == ZYDIS_CATEGORY_COND_BR ||
			   insn->meta.category == ZYDIS_CATEGORY_UNCOND_BR;
	f->rep = (insn->attributes &
		  (ZYDIS_ATTRIB_HAS_REP | ZYDIS_ATTRIB_HAS_REPE | ZYDIS_ATTRIB_HAS_REPNE)) &&
		 insn->meta.category == ZYDIS_CATEGORY_STRINGOP;
	control_registers(f);
	/* The stack pointer next, when an operand names it (push, pop, a frame's access). */
	for (unsigned i = 0; i < insn->operand_count; i++) {
		const ZydisDecodedOperand *op = &ops[i];
		if (op->type == ZYDIS_OPERAND_TYPE_REGISTER &&
		    op->reg.value == ZYDIS_REGISTER_RSP) {
			if (op->actions & ZYDIS_OPERAND_ACTION_MASK_READ)
				add(f->src, &f->nsrc, PIN_REG_RSP);
			if (op->actions & ZYDIS_OPERAND_ACTION_MASK_WRITE)
				add(f->dst, &f->ndst, PIN_REG_RSP);
		}
	}
	for (unsigned i = 0; i < insn->operand_count; i++) {
		const ZydisDecodedOperand *op = &ops[i];
		if (op->type == ZYDIS_OPERAND_TYPE_REGISTER && !control_register(op->reg.value)) {
			uint8_t r = pin_reg_of(op->reg.value);
			if (op->actions & ZYDIS_OPERAND_ACTION_MASK_READ)
				add(f->src, &f->nsrc, r);
			if (op->actions & ZYDIS_OPERAND_ACTION_MASK_WRITE)
				add(f->dst, &f->ndst, r);
		} else if (op->type == ZYDIS_OPERAND_TYPE_MEMORY) {
			/* The registers an address is made of are read (rip-relative ones read
			 * the instruction pointer, except a branch's: see control_registers). */
			if (op->mem.base == ZYDIS_REGISTER_RIP
				? f->branch == INSN_NOT_BRANCH
				: op->mem.base != ZYDIS_REGISTER_NONE)
				add(f->src, &f->nsrc, pin_reg_of(op->mem.base));
			if (op->mem.index != ZYDIS_REGISTER_NONE)
				add(f->src, &f->nsrc, pin_reg_of(op->mem.index));
			if (insn_memop_traced(insn, op) && f->nmem < INSN_MAX_MEMOPS)
				f->mem[f->nmem++] = (struct insn_memop){
				    .operand = (uint8_t)i,
				    .read = op->actions & ZYDIS_OPERAND_ACTION_MASK_READ,
				    .write = op->actions & ZYDIS_OPERAND_ACTION_MASK_WRITE,
				    .size = (uint16_t)(op->size / 8),
				    .base = op->mem.base,
				};
		}
	}
	flag_registers(f, insn);
}

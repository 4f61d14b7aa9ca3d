/* Applying a compiled specification to an instruction (pure, TLS-free). */
#include "vprof_spec.h"

#include <string.h>

#include "insn_facts.h"

/* VPROF_REG and the hardware numbers index Zydis's 64-bit registers in order. */
_Static_assert(ZYDIS_REGISTER_R15 - ZYDIS_REGISTER_RAX == 15, "Zydis's GPR order");

static bool selects(const struct vp_rule *r, const ZydisDecodedInstruction *insn,
		    const ZydisDecodedOperand *ops)
{
	switch (r->match) {
	case VPROF_MATCH_ALL:
		return true;
	case VPROF_MATCH_MNEMONIC:
	case VPROF_MATCH_SELECT:
		return r->mnemonics[insn->mnemonic / 8] & (1u << (insn->mnemonic % 8));
	case VPROF_MATCH_CATEGORY:
		return insn->meta.category == r->category;
	case VPROF_MATCH_MEMORY:
		for (unsigned i = 0; i < insn->operand_count; i++)
			if (insn_memop_traced(insn, &ops[i]))
				return true;
		return false;
	default:
		return false;
	}
}

static bool same_value(struct vprof_value a, struct vprof_value b)
{
	return a.kind == b.kind && a.arg == b.arg && a.when == b.when;
}

/* The index of the arg-th operand for which `want` holds, or -1. */
static int nth_operand(const ZydisDecodedInstruction *insn, const ZydisDecodedOperand *ops,
		       unsigned arg,
		       bool (*want)(const ZydisDecodedInstruction *, const ZydisDecodedOperand *))
{
	for (unsigned i = 0; i < insn->operand_count; i++)
		if (want(insn, &ops[i]) && arg-- == 0)
			return (int)i;
	return -1;
}

static bool is_memory(const ZydisDecodedInstruction *insn, const ZydisDecodedOperand *op)
{
	return insn_memop_traced(insn, op);
}

static bool is_read_register(const ZydisDecodedInstruction *insn, const ZydisDecodedOperand *op)
{
	(void)insn;
	return op->visibility == ZYDIS_OPERAND_VISIBILITY_EXPLICIT &&
	       op->type == ZYDIS_OPERAND_TYPE_REGISTER &&
	       (op->actions & ZYDIS_OPERAND_ACTION_MASK_READ);
}

static bool is_written(const ZydisDecodedInstruction *insn, const ZydisDecodedOperand *op)
{
	(void)insn;
	return op->visibility == ZYDIS_OPERAND_VISIBILITY_EXPLICIT &&
	       (op->actions & ZYDIS_OPERAND_ACTION_MASK_WRITE);
}

/* A general-purpose register operand, read through its 64-bit register. */
static bool capture_register(ZydisRegister reg, bool after, struct vprof_slot *slot,
			     struct vp_capture *how)
{
	unsigned bits;
	switch (ZydisRegisterGetClass(reg)) {
	case ZYDIS_REGCLASS_GPR8:
		bits = 8;
		break;
	case ZYDIS_REGCLASS_GPR16:
		bits = 16;
		break;
	case ZYDIS_REGCLASS_GPR32:
		bits = 32;
		break;
	case ZYDIS_REGCLASS_GPR64:
		bits = 64;
		break;
	default:
		return false;
	}
	ZydisRegister full = ZydisRegisterGetLargestEnclosing(ZYDIS_MACHINE_MODE_LONG_64, reg);
	bool high = reg == ZYDIS_REGISTER_AH || reg == ZYDIS_REGISTER_BH ||
		    reg == ZYDIS_REGISTER_CH || reg == ZYDIS_REGISTER_DH;
	*how =
	    (struct vp_capture){VP_GPR, (uint8_t)(full - ZYDIS_REGISTER_RAX), after, high ? 8 : 0};
	slot->size = (uint8_t)(bits / 8);
	slot->reg = ZydisRegisterGetString(reg);
	return true;
}

/* Memory operand `op`: its address, or the bytes it loaded or stored (only after). */
static bool capture_memory(const ZydisDecodedOperand *ops, int op, bool bytes, bool after,
			   struct vprof_slot *slot, struct vp_capture *how)
{
	if (op < 0 || (bytes && !after))
		return false;
	unsigned size = ops[op].size / 8;
	slot->access = (ops[op].actions & ZYDIS_OPERAND_ACTION_MASK_READ ? VPROF_READ : 0) |
		       (ops[op].actions & ZYDIS_OPERAND_ACTION_MASK_WRITE ? VPROF_WRITE : 0);
	if (!bytes) {
		*how = (struct vp_capture){VP_ADDR, (uint8_t)op, false, 0};
		slot->size = 8;
		return true;
	}
	size = size >= 8 ? 8 : size >= 4 ? 4 : size >= 2 ? 2 : 1;
	*how = (struct vp_capture){VP_MEM, (uint8_t)op, true, 0};
	slot->size = (uint8_t)size;
	return true;
}

static bool capture(const ZydisDecodedInstruction *insn, const ZydisDecodedOperand *ops,
		    struct vprof_value v, struct vprof_slot *slot, struct vp_capture *how)
{
	bool after = v.when == VPROF_AFTER;
	int op;
	switch (v.kind) {
	case VPROF_REG:
		return v.arg < 16 && capture_register((ZydisRegister)(ZYDIS_REGISTER_RAX + v.arg),
						      after, slot, how);
	case VPROF_DEST:
		op = nth_operand(insn, ops, 0, is_written);
		return op >= 0 && ops[op].type == ZYDIS_OPERAND_TYPE_REGISTER &&
		       capture_register(ops[op].reg.value, after, slot, how);
	case VPROF_SRC:
		op = nth_operand(insn, ops, v.arg, is_read_register);
		return op >= 0 && capture_register(ops[op].reg.value, after, slot, how);
	case VPROF_ADDR:
		return capture_memory(ops, nth_operand(insn, ops, v.arg, is_memory), false, false,
				      slot, how);
	case VPROF_MEM:
		return capture_memory(ops, nth_operand(insn, ops, v.arg, is_memory), true, true,
				      slot, how);
	case VPROF_RESULT:
		op = nth_operand(insn, ops, 0, is_written);
		if (op >= 0 && ops[op].type == ZYDIS_OPERAND_TYPE_REGISTER)
			return capture_register(ops[op].reg.value, after, slot, how);
		return op >= 0 && is_memory(insn, &ops[op]) &&
		       capture_memory(ops, op, true, after, slot, how);
	default:
		return false;
	}
}

bool vp_spec_describe(const struct vp_spec *s, uint64_t pc, const ZydisDecodedInstruction *insn,
		      const ZydisDecodedOperand *ops, const uint8_t *bytes, struct vprof_insn *out,
		      struct vp_capture how[VPROF_MAX_VALUES])
{
	bool selected = false;
	unsigned n = 0;
	for (unsigned r = 0; r < s->nrules; r++) {
		const struct vp_rule *rule = &s->rules[r];
		if (!selects(rule, insn, ops))
			continue;
		selected = true;
		for (unsigned k = 0; k < rule->nvalues && n < VPROF_MAX_VALUES; k++) {
			unsigned j = 0;
			while (j < n && !same_value(out->values[j].value, rule->values[k]))
				j++;
			if (j == n)
				out->values[n++].value = rule->values[k];
		}
	}
	if (!selected)
		return false;
	out->pc = pc;
	out->length = insn->length;
	memcpy(out->bytes, bytes, insn->length);
	out->mnemonic = ZydisMnemonicGetString(insn->mnemonic);
	out->category = ZydisCategoryGetString(insn->meta.category);
	out->nvalues = n;
	for (unsigned k = 0; k < n; k++) {
		struct vprof_slot *slot = &out->values[k];
		slot->size = 0;
		slot->access = 0;
		slot->reg = NULL;
		slot->valid = capture(insn, ops, slot->value, slot, &how[k]);
		if (!slot->valid)
			how[k] = (struct vp_capture){VP_NONE, 0, false, 0};
	}
	return true;
}

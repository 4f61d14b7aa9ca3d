#include "flags_ahead.h"

#include "app_copy.h"
#include "block.h"
#include "constant_slot.h"
#include "translate.h"

enum {
	WINDOW = 32, /* bytes read at each place: a prologue's first instructions, a PLT entry */
	LOOK = 8,    /* instructions decoded there at most */
	HOPS = 4,    /* places followed: a call, its PLT entry, the function, back after the call */
};

/* The return addresses of the calls followed, innermost last. */
struct returns {
	uint64_t pc[HOPS];
	int count;
};

/* Adds the aligned words covering [start, end) to w, each read now. */
static bool rely_on(uint64_t start, uint64_t end, struct flags_ahead_words *w)
{
	for (uint64_t at = start & ~(uint64_t)7; at < end; at += 8) {
		bool known = false;
		for (int i = 0; i < w->count && !known; i++)
			known = w->word[i].slot == at;
		if (known)
			continue;
		struct persist_slot s = {at, 0};
		if (w->count == FLAGS_AHEAD_MAX_WORDS || !constant_range(at, sizeof s.value) ||
		    !app_copy_in(&s.value, at, sizeof s.value))
			return false;
		w->word[w->count++] = s;
	}
	return true;
}

/* Where an unconditional jump or call goes when the code itself says: a relative one, or
 * one through a RIP-relative constant slot (relied on). */
static bool known_target(const struct block_insn *bi, uint64_t *target, struct flags_ahead_words *w)
{
	ZydisMnemonic m = bi->insn.mnemonic;
	if (m != ZYDIS_MNEMONIC_JMP && m != ZYDIS_MNEMONIC_CALL)
		return false;
	const ZydisDecodedOperand *op = &block_insn_ops(bi)[0];
	if (op->type == ZYDIS_OPERAND_TYPE_IMMEDIATE) {
		ZyanU64 to = 0;
		if (ZYAN_FAILED(ZydisCalcAbsoluteAddress(&bi->insn, op, bi->pc, &to)))
			return false;
		*target = to;
		return true;
	}
	uint64_t slot;
	return constant_slot_address(bi, &slot) && (slot & 7) == 0 && rely_on(slot, slot + 8, w) &&
	       app_copy_in(target, slot, sizeof *target);
}

/* Whether b ends in a near `ret` that returns where the call that entered it would: none of
 * its instructions writes memory or the stack pointer (a leaf function's body). */
static bool returns_to_caller(const struct jit_block *b)
{
	const ZydisDecodedInstruction *last = &b->insns[b->length - 1].insn;
	if (last->mnemonic != ZYDIS_MNEMONIC_RET || (last->opcode != 0xc3 && last->opcode != 0xc2))
		return false;
	for (size_t i = 0; i + 1 < b->length; i++) {
		const ZydisDecodedOperand *ops = block_insn_ops(&b->insns[i]);
		for (uint8_t k = 0; k < b->insns[i].insn.operand_count; k++) {
			if (!(ops[k].actions & ZYDIS_OPERAND_ACTION_MASK_WRITE))
				continue;
			if (ops[k].type == ZYDIS_OPERAND_TYPE_MEMORY ||
			    (ops[k].type == ZYDIS_OPERAND_TYPE_REGISTER &&
			     ZydisRegisterGetLargestEnclosing(ZYDIS_MACHINE_MODE_LONG_64,
							      ops[k].reg.value) ==
				 ZYDIS_REGISTER_RSP))
				return false;
		}
	}
	return true;
}

/* flags_dead_ahead from a copy of the words relied on (w), which become them if so; `ret`:
 * the calls already followed on the way there. */
static bool dead_from(uint64_t pc, struct flags_ahead_words w, struct returns ret,
		      struct flags_ahead_words *relied_on)
{
	uint32_t written = 0;
	for (int hop = 0; hop < HOPS; hop++) {
		uint8_t code[WINDOW];
		if (!constant_range(pc, WINDOW) || !app_copy_in(code, pc, WINDOW))
			return false;
		struct block_insn insns[LOOK];
		struct jit_block ahead = {.start_pc = pc, .insns = insns};
		size_t off = translate_decode_run(code, WINDOW, pc, &ahead, LOOK);
		if (!ahead.length || !rely_on(pc, pc + off, &w))
			return false;
		enum flags_use use = block_flags_use(&ahead, 0, &written);
		if (use == FLAGS_WRITTEN) {
			*relied_on = w;
			return true;
		}
		if (use == FLAGS_READ)
			return false;
		if (returns_to_caller(&ahead)) {
			if (!ret.count)
				return false;
			pc = ret.pc[--ret.count];
			continue;
		}
		const struct block_insn *last = &insns[ahead.length - 1];
		uint64_t next = last->pc + last->insn.length;
		if (!known_target(last, &pc, &w))
			return false;
		if (last->insn.mnemonic == ZYDIS_MNEMONIC_CALL && ret.count < HOPS)
			ret.pc[ret.count++] = next;
	}
	return false;
}

bool flags_dead_ahead(uint64_t pc, struct flags_ahead_words *relied_on)
{
	return dead_from(pc, *relied_on, (struct returns){{0}, 0}, relied_on);
}

bool flags_dead_after_branch(const struct block_insn *bi, struct flags_ahead_words *relied_on)
{
	struct flags_ahead_words w = *relied_on;
	struct returns ret = {{0}, 0};
	if (bi->insn.mnemonic == ZYDIS_MNEMONIC_CALL)
		ret.pc[ret.count++] = bi->pc + bi->insn.length;
	uint64_t target;
	return known_target(bi, &target, &w) && dead_from(target, w, ret, relied_on);
}

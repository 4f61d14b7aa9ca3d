#include "flags_ahead.h"

#include "app_copy.h"
#include "block.h"
#include "constant_slot.h"
#include "translate.h"

enum {
	WINDOW = 32, /* bytes read at each place: a prologue's first instructions, a PLT entry */
	LOOK = 8,    /* instructions decoded there at most */
	HOPS = 3,    /* places followed: a call, its PLT entry, the function */
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
	if (op->type != ZYDIS_OPERAND_TYPE_MEMORY || op->mem.base != ZYDIS_REGISTER_RIP ||
	    op->mem.index != ZYDIS_REGISTER_NONE || op->mem.segment == ZYDIS_REGISTER_FS ||
	    op->mem.segment == ZYDIS_REGISTER_GS || op->size != 64)
		return false;
	uint64_t slot = bi->pc + bi->insn.length + (uint64_t)op->mem.disp.value;
	return (slot & 7) == 0 && rely_on(slot, slot + 8, w) &&
	       app_copy_in(target, slot, sizeof *target);
}

/* flags_dead_ahead from a copy of the words relied on (w), which become them if so. */
static bool dead_from(uint64_t pc, struct flags_ahead_words w, struct flags_ahead_words *relied_on)
{
	uint32_t written = 0;
	for (int hop = 0; hop < HOPS; hop++) {
		uint8_t code[WINDOW];
		if (!constant_range(pc, WINDOW) || !app_copy_in(code, pc, WINDOW))
			return false;
		struct block_insn insns[LOOK];
		struct jit_block ahead = {.start_pc = pc, .insns = insns};
		size_t off = 0;
		while (ahead.length < LOOK &&
		       translate_decode(code + off, WINDOW - off, pc + off, &insns[ahead.length])) {
			off += insns[ahead.length].insn.length;
			if (translate_ends_block(&insns[ahead.length++]))
				break;
		}
		if (!ahead.length || !rely_on(pc, pc + off, &w))
			return false;
		enum flags_use use = block_flags_use(&ahead, 0, &written);
		if (use == FLAGS_WRITTEN) {
			*relied_on = w;
			return true;
		}
		const struct block_insn *last = &insns[ahead.length - 1];
		if (use == FLAGS_READ || !known_target(last, &pc, &w))
			return false;
	}
	return false;
}

bool flags_dead_ahead(uint64_t pc, struct flags_ahead_words *relied_on)
{
	return dead_from(pc, *relied_on, relied_on);
}

bool flags_dead_after_branch(const struct block_insn *bi, struct flags_ahead_words *relied_on)
{
	struct flags_ahead_words w = *relied_on;
	uint64_t target;
	return known_target(bi, &target, &w) && dead_from(target, w, relied_on);
}

/* Split budgets (instrument.h, jit_split_budget): one budget in several client slots. */
#include "instrument.h"

bool jit_split_budget_reserve(struct jit_split_budget *b)
{
	bool ok = true;
	for (int i = 0; i < JIT_SPLIT_SLOTS; i++)
		ok &= (b->slot[i] = jit_thread_slot_reserve()) >= 0;
	return ok;
}

void jit_split_budget_set(struct jit_thread *t, const struct jit_split_budget *b, int64_t value)
{
	for (int i = 0; i < JIT_SPLIT_SLOTS; i++) {
		int64_t part = value < 0 ? value : value / JIT_SPLIT_SLOTS;
		if (i == 0 && value >= 0)
			part += value % JIT_SPLIT_SLOTS;
		jit_thread_slot_set(t, b->slot[i], (uint64_t)part);
	}
}

int64_t jit_split_budget_get(const struct jit_thread *t, const struct jit_split_budget *b)
{
	uint64_t sum = 0;
	for (int i = 0; i < JIT_SPLIT_SLOTS; i++)
		sum += jit_thread_slot_get(t, b->slot[i]);
	return (int64_t)sum;
}

static bool has_rep_string(const struct jit_block *blk)
{
	for (size_t i = 0; i < jit_block_length(blk); i++)
		if (jit_insn_is_rep_string(jit_block_insn(blk, i)))
			return true;
	return false;
}

void jit_insert_split_budget_check(struct jit_block *blk, const struct jit_split_budget *b,
				   jit_callout_fn fn, void *arg)
{
	/* Under the runtime's lock, as every translation. */
	static unsigned turn;
	if (!has_rep_string(blk)) {
		jit_insert_budget_check(blk, b->slot[turn++ % JIT_SPLIT_SLOTS], fn, arg);
		return;
	}
	/* Its iterations go down in every slot it checks: in all of them, the next block's
	 * slot holds them too, whichever it is. */
	for (int i = 0; i < JIT_SPLIT_SLOTS; i++)
		jit_insert_budget_check(blk, b->slot[i], fn, arg);
}

#include "count_groups.h"

#include "instruction_count.h"

/* The block's instructions counted as they are (all but REP string instructions, counted
 * by their iterations). */
static uint32_t counted_insns(const struct jit_block *b)
{
	uint32_t n = 0;
	for (size_t i = 0; i < b->length; i++)
		n += instrument_counted(b, i);
	return n;
}

/* The block's count that its group's first block may take over: the striped count's
 * counter (index in b->counters), or the countdown's check (index in b->budgets), with
 * nothing else that measures its instructions (another budget, a trace record) and needs
 * it counted at its own start; -1: none. Under the countdown, not a block with a REP
 * string instruction either: the check after it must see its iterations. */
static int shareable_count(const struct jit_block *b)
{
	if (b->trace.buffer_slot >= 0)
		return -1;
	if (icount_is_countdown())
		return b->budget_count == 1 && counted_insns(b) == b->length
			   ? icount_countdown_check(b)
			   : -1;
	return b->budget_count ? -1 : icount_stripe_counter(b);
}

/* The block's counted instructions, which its group's first block counts when it is
 * inside: the striped counter's amount, or what the countdown's check takes (emitted with
 * the group's rest, translate.c). */
static uint32_t own_count(const struct jit_block *b)
{
	if (icount_is_countdown())
		return counted_insns(b);
	int own = icount_stripe_counter(b);
	return own >= 0 ? b->counters[own].amount : 0;
}

static int count_slot(const struct jit_block *b, int shared)
{
	if (shared < 0)
		return -1;
	return icount_is_countdown() ? b->budgets[shared].slot : b->counters[shared].slot;
}

/* Block k's count moves to its group's first block. */
static void drop_count(struct jit_block *b, int shared)
{
	if (icount_is_countdown()) {
		b->budgets[shared] = b->budgets[--b->budget_count];
		return;
	}
	b->counters[shared] = b->counters[--b->counter_count];
}

void count_groups_form(struct jit_block *chain, size_t n, const bool *may_join,
		       struct count_groups *g)
{
	int head_shared = -1; /* the current group's first block's shareable count */
	size_t head = 0;
	for (size_t k = 0; k < n; k++) {
		g->own[k] = own_count(&chain[k]);
		int shared = shareable_count(&chain[k]);
		g->inside[k] = k > 0 && may_join[k] && shared >= 0 && head_shared >= 0;
		if (g->inside[k]) {
			if (!icount_is_countdown())
				chain[head].counters[head_shared].amount += g->own[k];
			drop_count(&chain[k], shared);
			g->slot[k] = g->slot[head];
			g->check[k] = g->check[head];
			continue;
		}
		head = k;
		head_shared = shared;
		int own = icount_is_countdown() ? shared : icount_stripe_counter(&chain[k]);
		g->slot[k] = count_slot(&chain[k], own);
		g->check[k] = icount_is_countdown() && shared >= 0 ? chain[k].budgets[shared]
								   : (struct block_callout){0};
	}
	uint32_t rest = 0;
	for (size_t k = n; k-- > 0;) {
		g->rest_after[k] = rest;
		rest = g->inside[k] ? rest + g->own[k] : 0;
	}
}

#include "count_groups.h"

#include "instruction_count.h"

/* A block whose count may be shared: it has one, and nothing else that measures its
 * instructions (a budget, a trace record) needs it counted at its own start. */
static int shareable_counter(const struct jit_block *b)
{
	if (b->budget_count || b->trace.buffer_slot >= 0)
		return -1;
	return icount_stripe_counter(b);
}

static void drop_counter(struct jit_block *b, int i)
{
	b->counters[i] = b->counters[--b->counter_count];
}

void count_groups_form(struct jit_block *chain, size_t n, const bool *may_join,
		       struct count_groups *g)
{
	int head_counter = -1; /* the current group's first block's counter */
	size_t head = 0;
	for (size_t k = 0; k < n; k++) {
		int own = icount_stripe_counter(&chain[k]);
		g->own[k] = own >= 0 ? chain[k].counters[own].amount : 0;
		int shared = shareable_counter(&chain[k]);
		g->inside[k] = k > 0 && may_join[k] && shared >= 0 && head_counter >= 0;
		if (g->inside[k]) {
			chain[head].counters[head_counter].amount += g->own[k];
			drop_counter(&chain[k], shared);
			g->slot[k] = g->slot[head];
			continue;
		}
		head = k;
		head_counter = shared;
		g->slot[k] = own >= 0 ? chain[k].counters[own].slot : -1;
	}
	uint32_t rest = 0;
	for (size_t k = n; k-- > 0;) {
		g->rest_after[k] = rest;
		rest = g->inside[k] ? rest + g->own[k] : 0;
	}
}

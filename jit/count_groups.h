/* Count groups: consecutive blocks of a chain (translate.c) whose instructions the
 * built-in count adds once, where the group's first block starts, rather than once per
 * block. A block joins the group of the block before it when it is reached by falling
 * through a conditional branch that jumps far ahead or very far back (which mostly falls
 * through: the likely path is laid out straight, the unlikely one out of line; translate.c's
 * may_share_count) or by no branch at all.
 *
 * The count stays exact wherever it is read. Inside a group a thread has been counted for
 * the rest of the group: callouts, faults and safe points take that back as they take back
 * the rest of a block (the `remaining` of instrument_uncount covers the group's rest).
 * Leaving the group early costs what was counted ahead: a taken branch out of block k goes
 * through code that subtracts rest_after[k] on its way to the target, a thread leaving at
 * block k's end through its fall-through site has the dispatcher take it back (and give it
 * back if it resumes inside), and a branch into block k from elsewhere goes to a
 * translation of its own that starts there (or, once a client retires translations by
 * pcs, through a chain entry that adds what block k's group still counts from k on:
 * translate.c's enterable).
 *
 * Under the countdown (a replay's exact stops: instruction_count.c) the group's first
 * block checks the budget for the whole group, and the blocks inside check nothing: a
 * check that fires there may find the stop inside the group, where jit_callout_limit_block
 * runs the first block alone and sends the thread on to the next block, through the
 * dispatcher: to its own translation, whose group starts there and checks (or a chain
 * entry that checks what the group counts from there on). A taken branch out of block k
 * gives rest_after[k] back to the budget, and so does the dispatcher for a thread leaving
 * at a fall-through site (rare: translate.c joins no block to one whose callouts want a
 * site), which then goes on to the next block the same way. No group holds a REP string
 * instruction, whose iterations the next check must see. */
#ifndef JIT_COUNT_GROUPS_H
#define JIT_COUNT_GROUPS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "block.h"

enum { COUNT_GROUP_MAX_BLOCKS = 16 };

struct count_groups {
	/* counted instructions of block k's group after block k */
	uint32_t rest_after[COUNT_GROUP_MAX_BLOCKS];
	/* block k's own counted instructions (added by its group's first block when inside) */
	uint32_t own[COUNT_GROUP_MAX_BLOCKS];
	/* block k is not its group's first block */
	bool inside[COUNT_GROUP_MAX_BLOCKS];
	/* the client slot block k's count goes to (its group's), -1: none */
	int slot[COUNT_GROUP_MAX_BLOCKS];
	/* under the countdown, the check of block k's group (what a chain entry into it makes) */
	struct block_callout check[COUNT_GROUP_MAX_BLOCKS];
};

/* Forms the groups of the n instrumented blocks of a chain and moves the count of each
 * block inside a group to the group's first block. may_join[k]: block k may share the
 * count of block k-1 (the caller's choice). */
void count_groups_form(struct jit_block *chain, size_t n, const bool *may_join,
		       struct count_groups *g);

#endif

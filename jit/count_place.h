/* Where a block's counter updates go when the app's status flags are live at its start.
 * There a plain `add` to the counter would change them, and the update borrows %rax
 * through the thread block instead (a store and a load more, their latency on the app's
 * %rax): the most costly part of counting on code that calls and returns a lot (sqlite:
 * four fifths of what `-icount` added). Often the block's first instructions cannot
 * fault and soon either write every flag (a plain `add` fits before that one) or write a
 * whole register they do not read (that register, dead until then, carries the update).
 * Moved there, the update is still made before any instruction that can leave the block,
 * so the count is exact wherever it is read but at a fault before it, where the fault's
 * handling adds what is pending. Most blocks begin with a load (which may fault), so
 * the update may go past loads and stores when the count is one such counter. */
#ifndef JIT_COUNT_PLACE_H
#define JIT_COUNT_PLACE_H

#include <stdbool.h>
#include <stddef.h>

#include "block.h"

struct count_place {
	size_t before; /* the instruction the updates go before */
	int reg;       /* the dead register that carries them; -1: a plain add */
	/* Instructions before it may fault: a fault there finds the block not counted yet
	 * (struct insn_map's count_pending). */
	bool after_faults;
	/* `before` is the block's indirect branch, and the updates go through the register
	 * its lookup sets aside anyway (after a load that may fault); `reg` is unused. */
	bool in_lookup;
};

/* False when neither comes before an instruction that may leave the block, or before
 * one that may fault unless `past_faults`, or the block has anything else at its start
 * (budget checks, a trace record, callouts). `ends_in_lookup`: the block's last
 * instruction is an indirect branch whose lookup may carry the updates (with
 * `past_faults` only). */
bool count_place_find(const struct jit_block *b, bool past_faults, bool ends_in_lookup,
		      struct count_place *out);

#endif

/* gdb's breakpoints and watchpoints. A breakpoint is a callout before the instruction at its
 * pc, in every translation of it: inserting or removing one retranslates only the blocks
 * holding that pc, and app memory is never written (the app never sees an int3). A
 * watchpoint makes every memory instruction check its addresses, so adding or removing
 * one retranslates everything. Changed by the stopper only, read when translating. */
#include <string.h>

#include "stop_internal.h"

static size_t lower_bound(uint64_t pc)
{
	size_t lo = 0, hi = dbg.nbreakpoints;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (dbg.breakpoints[mid] < pc)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

bool dbg_breakpoint_at(uint64_t pc)
{
	size_t i = lower_bound(pc);
	return i < dbg.nbreakpoints && dbg.breakpoints[i] == pc;
}

bool dbg_set_breakpoint(uint64_t pc, bool insert)
{
	size_t i = lower_bound(pc);
	bool present = i < dbg.nbreakpoints && dbg.breakpoints[i] == pc;
	if (insert == present)
		return true; /* gdb may insert one twice (a breakpoint and a step-resume one) */
	if (insert) {
		if (dbg.nbreakpoints == MAX_BREAKPOINTS)
			return false;
		memmove(&dbg.breakpoints[i + 1], &dbg.breakpoints[i],
			(dbg.nbreakpoints - i) * sizeof dbg.breakpoints[0]);
		dbg.breakpoints[i] = pc;
		dbg.nbreakpoints++;
	} else {
		memmove(&dbg.breakpoints[i], &dbg.breakpoints[i + 1],
			(dbg.nbreakpoints - i - 1) * sizeof dbg.breakpoints[0]);
		dbg.nbreakpoints--;
	}
	jit_request_retranslation_at(&pc, 1);
	return true;
}

bool dbg_set_watch(uint64_t addr, uint64_t len, enum dbg_stop_kind kind, bool insert)
{
	for (uint32_t i = 0; i < dbg.nwatches; i++) {
		struct watch *w = &dbg.watches[i];
		if (w->addr != addr || w->len != len || w->kind != kind)
			continue;
		if (!insert) {
			*w = dbg.watches[--dbg.nwatches];
			jit_request_retranslation();
		}
		return true;
	}
	if (!insert)
		return true;
	if (dbg.nwatches == MAX_WATCHES || !len)
		return false;
	dbg.watches[dbg.nwatches++] = (struct watch){addr, len, kind};
	jit_request_retranslation();
	return true;
}

void dbg_clear_all(void)
{
	dbg.nbreakpoints = 0;
	dbg.nwatches = 0;
	jit_request_retranslation();
}

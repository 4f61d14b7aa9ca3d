/* gdb's breakpoints and watchpoints. A breakpoint is a callout before the instruction at its
 * pc, in every translation of it: inserting or removing one retranslates only the blocks
 * holding that pc, and app memory is never written (the app never sees an int3). A
 * watchpoint makes every memory instruction check its addresses, so adding or removing
 * one retranslates everything. Kept in the shared channel (a copy of the replay made from
 * a checkpoint takes them over: dbg_points_sync); changed by the stopper only, read when
 * translating. */
#include <string.h>

#include "stop_internal.h"

static struct dbg_points *points(void)
{
	return &dbg_channel->points;
}

static size_t lower_bound(uint64_t pc)
{
	size_t lo = 0, hi = points()->nbreakpoints;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (points()->breakpoints[mid] < pc)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

bool dbg_breakpoint_at(uint64_t pc)
{
	size_t i = lower_bound(pc);
	return i < points()->nbreakpoints && points()->breakpoints[i] == pc;
}

/* A change this process made: its translations follow it (no full retranslation). */
static void changed(void)
{
	dbg.points_gen = ++points()->gen;
}

bool dbg_set_breakpoint(uint64_t pc, bool insert)
{
	struct dbg_points *p = points();
	size_t i = lower_bound(pc);
	bool present = i < p->nbreakpoints && p->breakpoints[i] == pc;
	if (insert == present)
		return true; /* gdb may insert one twice (a breakpoint and a step-resume one) */
	if (insert) {
		if (p->nbreakpoints == DBG_MAX_BREAKPOINTS)
			return false;
		memmove(&p->breakpoints[i + 1], &p->breakpoints[i],
			(p->nbreakpoints - i) * sizeof p->breakpoints[0]);
		p->breakpoints[i] = pc;
		p->nbreakpoints++;
	} else {
		memmove(&p->breakpoints[i], &p->breakpoints[i + 1],
			(p->nbreakpoints - i - 1) * sizeof p->breakpoints[0]);
		p->nbreakpoints--;
	}
	changed();
	jit_request_retranslation_at(&pc, 1);
	return true;
}

bool dbg_set_watch(uint64_t addr, uint64_t len, enum dbg_stop_kind kind, bool insert)
{
	struct dbg_points *p = points();
	for (uint32_t i = 0; i < p->nwatches; i++) {
		struct dbg_watch *w = &p->watches[i];
		if (w->addr != addr || w->len != len || w->kind != kind)
			continue;
		if (!insert) {
			*w = p->watches[--p->nwatches];
			changed();
			jit_request_retranslation();
		}
		return true;
	}
	if (!insert)
		return true;
	if (p->nwatches == DBG_MAX_WATCHES || !len)
		return false;
	p->watches[p->nwatches++] = (struct dbg_watch){addr, len, kind};
	changed();
	jit_request_retranslation();
	return true;
}

void dbg_clear_all(void)
{
	points()->nbreakpoints = 0;
	points()->nwatches = 0;
	changed();
	jit_request_retranslation();
}

void dbg_points_sync(void)
{
	if (dbg.points_gen == points()->gen)
		return;
	dbg.points_gen = points()->gen;
	jit_request_retranslation();
}

/* Retranslating only what an alarm's arming changes. An alarm at a known pc (address,
 * enter_func, exit_func, pcontrol, a watched return) lives in the blocks holding that pc.
 * A pattern alarm (ssc, itext, int3, isa, cpuid, magic) lives where its instructions are:
 * translation notes every matching instruction, armed or not, so arming it later retires
 * just those blocks. Called with engine.lock held. */
#include "engine_internal.h"
#include "rt_alloc.h"

enum { MAX_SITES = 4096 }; /* beyond this many sites an arming retranslates everything */

static bool at_known_pc(const struct control_alarm *a)
{
	switch (a->type) {
	case CONTROL_ALARM_ADDRESS:
	case CONTROL_ALARM_ENTER_FUNC:
	case CONTROL_ALARM_EXIT_FUNC:
	case CONTROL_ALARM_PCONTROL:
		return true;
	default:
		return false;
	}
}

bool engine_is_pattern_alarm(const struct control_alarm *a)
{
	return engine_is_instruction_alarm(a) && !at_known_pc(a);
}

void engine_note_site(struct alarm_ref *r, uint64_t pc)
{
	/* sorted, without duplicates: retranslation wants them sorted */
	uint32_t lo = 0, hi = r->nsites;
	while (lo < hi) {
		uint32_t mid = (lo + hi) / 2;
		if (r->sites[mid] < pc)
			lo = mid + 1;
		else
			hi = mid;
	}
	if ((lo < r->nsites && r->sites[lo] == pc) || r->sites_overflow)
		return;
	if (r->nsites == r->sites_cap) {
		uint32_t cap = r->sites_cap ? 2 * r->sites_cap : 16;
		uint64_t *s = cap <= MAX_SITES ? rt_realloc(r->sites, cap * sizeof *s) : NULL;
		if (!s) {
			r->sites_overflow = true;
			return;
		}
		r->sites = s;
		r->sites_cap = cap;
	}
	for (uint32_t i = r->nsites; i > lo; i--)
		r->sites[i] = r->sites[i - 1];
	r->sites[lo] = pc;
	r->nsites++;
}

void engine_retranslate_pc(uint64_t pc)
{
	jit_request_retranslation_at(&pc, 1);
}

void engine_retranslate_alarm(const struct alarm_ref *r)
{
	if (at_known_pc(engine_alarm(r))) {
		if (r->resolved_pc)
			engine_retranslate_pc(r->resolved_pc);
	} else if (r->sites_overflow) {
		jit_request_retranslation();
	} else if (r->nsites) {
		jit_request_retranslation_at(r->sites, r->nsites);
	}
}

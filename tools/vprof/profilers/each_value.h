/* What both bundled profilers do with their entries: one sample per captured value, with
 * the entry's pc and contexts. */
#ifndef VPROF_PROFILERS_EACH_VALUE_H
#define VPROF_PROFILERS_EACH_VALUE_H

#include "pintrace_vprofiler.h"

static inline size_t each_value(const struct vprof_entry *entries, size_t n,
				struct vprof_sample *samples)
{
	size_t m = 0;
	for (size_t i = 0; i < n; i++) {
		const struct vprof_entry *e = &entries[i];
		for (unsigned k = 0; k < e->insn->nvalues; k++)
			if (e->valid & (1u << k))
				samples[m++] = (struct vprof_sample){
				    e->insn->pc, {e->context[0], e->context[1]}, e->values[k]};
	}
	return m;
}

#endif

/* A test profiler: the value each load or store read or wrote (its first memory operand),
 * with the thread and the call site as contexts. */
#include <inttypes.h>
#include <stdio.h>

#include "pintrace_vprofiler.h"

static const struct vprof_rule rules[] = {
    {.match = VPROF_MATCH_MEMORY, .nvalues = 1, .values = {{VPROF_MEM, 0, VPROF_AFTER}}},
};
static const struct vprof_spec spec = {VPROF_CONTEXT_THREAD | VPROF_CONTEXT_CALLER, 1, rules};

static const char *name(void)
{
	return "memory";
}

static const struct vprof_spec *prof_init(void)
{
	return &spec;
}

static size_t process(const struct vprof_entry *e, size_t n, struct vprof_sample *samples)
{
	size_t m = 0;
	for (size_t i = 0; i < n; i++)
		if (e[i].valid & 1)
			samples[m++] = (struct vprof_sample){
			    e[i].insn->pc, {e[i].context[0], e[i].context[1]}, e[i].values[0]};
	return m;
}

VPROF_PLUGIN = {
    .api_version = VPROF_API_VERSION,
    .name = name,
    .prof_init = prof_init,
    .process = process,
};

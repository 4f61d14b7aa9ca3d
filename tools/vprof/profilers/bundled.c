/* The table of a bundled profiler (bundled.h). */
#include "bundled.h"

static const char *name(void)
{
	return bundled_name;
}

static const struct vprof_spec *prof_init(void)
{
	return &bundled_spec;
}

static size_t each_value(const struct vprof_entry *entries, size_t n, struct vprof_sample *samples)
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

VPROF_PLUGIN = {
    .api_version = VPROF_API_VERSION,
    .name = name,
    .prof_init = prof_init,
    .process = each_value,
    .preface = bundled_preface,
    .format = bundled_format,
};

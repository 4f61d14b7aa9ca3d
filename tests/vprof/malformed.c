/* Plug-ins pintrace must refuse, one per value of BROKEN:
 *   1 no pintrace_vprofiler table   2 built for interface version 99
 *   3 no process function           4 a rule naming no mnemonic
 *   5 init refuses */
#include "pintrace_vprofiler.h"

static const char *name(void)
{
	return "malformed";
}

static const struct vprof_rule rules[] = {
    {.match = VPROF_MATCH_MNEMONIC, .name = BROKEN == 4 ? "frobnicate" : "mov"},
};
static const struct vprof_spec spec = {0, 1, rules};

static const struct vprof_spec *prof_init(void)
{
	return &spec;
}

static size_t process(const struct vprof_entry *e, size_t n, struct vprof_sample *samples)
{
	(void)e;
	(void)n;
	(void)samples;
	return 0;
}

static int init(void)
{
	return BROKEN == 5 ? 7 : 0;
}

#if BROKEN != 1
VPROF_PLUGIN = {
    .api_version = BROKEN == 2 ? 99 : VPROF_API_VERSION,
    .name = name,
    .init = init,
    .prof_init = prof_init,
    .process = BROKEN == 3 ? NULL : process,
};
#else
/* Something else, so that the library is not empty. */
__attribute__((visibility("default"))) int not_a_profiler(void)
{
	return name()[0] + (int)init() + (int)process(0, 0, 0) + (prof_init() != 0);
}
#endif

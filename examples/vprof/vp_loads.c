/* vp-loads: the values loads read, as signed numbers. */
#include <inttypes.h>
#include <stdio.h>

#include <pintrace_vprofiler.h>

static const struct vprof_rule rules[] = {
    /* Every instruction that accesses memory: the bytes of its first memory operand. */
    {.match = VPROF_MATCH_MEMORY, .nvalues = 1, .values = {{VPROF_MEM, 0, VPROF_AFTER}}},
};
static const struct vprof_spec spec = {.contexts = 0, .nrules = 1, .rules = rules};

static const char *name(void)
{
	return "loads";
}

static const struct vprof_spec *prof_init(void)
{
	return &spec;
}

/* A sample per load whose value was captured (stores are left out). */
static size_t process(const struct vprof_entry *e, size_t n, struct vprof_sample *samples)
{
	size_t m = 0;
	for (size_t i = 0; i < n; i++)
		if ((e[i].valid & 1) && e[i].insn->values[0].access == VPROF_READ)
			samples[m++] = (struct vprof_sample){e[i].insn->pc, {0, 0}, e[i].values[0]};
	return m;
}

static const char *preface(const struct vprof_insn *insn)
{
	static char line[32];
	if (!insn->values[0].valid || insn->values[0].access != VPROF_READ)
		return NULL;
	snprintf(line, sizeof line, "loaded (%u bytes)", insn->values[0].size);
	return line;
}

/* The value as a signed number of the operand's width. */
static void format(const struct vprof_insn *insn, uint64_t v, char *buf, size_t size)
{
	unsigned bits = 8 * insn->values[0].size;
	int64_t s = bits < 64 && v >> (bits - 1) ? (int64_t)(v | ~0ull << bits) : (int64_t)v;
	snprintf(buf, size, "%" PRId64, s);
}

VPROF_PLUGIN = {
    .api_version = VPROF_API_VERSION,
    .name = name,
    .prof_init = prof_init,
    .process = process,
    .preface = preface,
    .format = format,
};

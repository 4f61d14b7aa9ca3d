/* vp-stride: an example value profiler. For every load, the stride: how far its address
 * moved since the same instruction's previous execution in the same thread. A loop walking
 * an array shows its element size at 100%; a pointer chase shows scattered strides.
 *
 *   cc -shared -fPIC -O2 $(pkg-config --cflags pintrace-vprofiler) vp_stride.c -o vp-stride.so
 *   replayer -vprofile ./vp-stride.so -vprofile_out stride.vprof pinball/log.0
 *   pinball vplist stride.vprof
 *
 * The capture specification asks for the first memory operand's address of every
 * instruction that accesses memory; process keeps each (thread, instruction)'s last
 * address in a hash table of its own (ordinary C: it runs on a helper thread). */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "pintrace_vprofiler.h"

static const struct vprof_rule rules[] = {
    {.match = VPROF_MATCH_MEMORY, .nvalues = 1, .values = {{VPROF_ADDR, 0, VPROF_BEFORE}}},
};
static const struct vprof_spec spec = {.contexts = 0, .nrules = 1, .rules = rules};

/* The last address of each (thread, pc): open addressing, doubled when half full. */
struct last {
	uint64_t pc, address;
	uint32_t tid;
	int used;
};
static struct last *table;
static size_t capacity, used;

static size_t slot(const struct last *t, size_t cap, uint32_t tid, uint64_t pc)
{
	size_t h = (size_t)((pc ^ (uint64_t)tid << 48) * 0x9e3779b97f4a7c15ull) & (cap - 1);
	while (t[h].used && (t[h].pc != pc || t[h].tid != tid))
		h = (h + 1) & (cap - 1);
	return h;
}

static int grow(void)
{
	size_t cap = capacity ? 2 * capacity : 1024;
	struct last *t = calloc(cap, sizeof *t);
	if (!t)
		return -1;
	for (size_t i = 0; i < capacity; i++)
		if (table[i].used)
			t[slot(t, cap, table[i].tid, table[i].pc)] = table[i];
	free(table);
	table = t;
	capacity = cap;
	return 0;
}

static const char *name(void)
{
	return "stride";
}

static const struct vprof_spec *prof_init(void)
{
	return grow() ? NULL : &spec;
}

static void prof_release(void)
{
	free(table);
	table = NULL;
	capacity = used = 0;
}

static size_t process(const struct vprof_entry *entries, size_t n, struct vprof_sample *samples)
{
	size_t m = 0;
	for (size_t i = 0; i < n; i++) {
		const struct vprof_entry *e = &entries[i];
		if (!(e->valid & 1) || !(e->insn->values[0].access & VPROF_READ))
			continue; /* not a load, or no address this time */
		if (2 * (used + 1) > capacity && grow())
			abort(); /* out of memory: nothing sensible to profile */
		struct last *l = &table[slot(table, capacity, e->tid, e->insn->pc)];
		if (l->used)
			samples[m++] =
			    (struct vprof_sample){e->insn->pc, {0, 0}, e->values[0] - l->address};
		else
			used++;
		*l = (struct last){e->insn->pc, e->values[0], e->tid, 1};
	}
	return m;
}

static const char *preface(const struct vprof_insn *insn)
{
	return insn->nvalues && insn->values[0].access & VPROF_READ ? "stride (bytes)" : NULL;
}

static void format(const struct vprof_insn *insn, uint64_t value, char *buf, size_t size)
{
	(void)insn;
	snprintf(buf, size, "%+" PRId64, (int64_t)value);
}

VPROF_PLUGIN = {
    .api_version = VPROF_API_VERSION,
    .name = name,
    .prof_init = prof_init,
    .prof_release = prof_release,
    .process = process,
    .preface = preface,
    .format = format,
};

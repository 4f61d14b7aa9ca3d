#include "vprof_profile.h"

#include <stdlib.h>
#include <string.h>

static uint64_t mix(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdull;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ull;
	return x ^ (x >> 33);
}

struct vp_profile *vp_profile_new(const char *name, const char *plugin, unsigned contexts,
				  uint32_t values_kept)
{
	struct vp_profile *p = calloc(1, sizeof *p);
	if (!p)
		return NULL;
	p->name = strdup(name);
	p->plugin = strdup(plugin);
	p->contexts = contexts;
	p->values_kept = values_kept;
	p->capacity = 1024;
	p->stats = calloc(p->capacity, sizeof *p->stats);
	if (!p->name || !p->plugin || !p->stats) {
		vp_profile_free(p);
		return NULL;
	}
	return p;
}

static void place(struct vp_stat **table, size_t capacity, struct vp_stat *s)
{
	size_t h = mix(s->pc) & (capacity - 1);
	while (table[h])
		h = (h + 1) & (capacity - 1);
	table[h] = s;
}

struct vp_stat *vp_profile_stat(struct vp_profile *p, uint64_t pc)
{
	size_t h = mix(pc) & (p->capacity - 1);
	for (; p->stats[h]; h = (h + 1) & (p->capacity - 1))
		if (p->stats[h]->pc == pc)
			return p->stats[h];
	if (2 * (p->nstats + 1) > p->capacity) {
		struct vp_stat **grown = calloc(2 * p->capacity, sizeof *grown);
		if (!grown)
			return NULL;
		for (size_t i = 0; i < p->capacity; i++)
			if (p->stats[i])
				place(grown, 2 * p->capacity, p->stats[i]);
		free(p->stats);
		p->stats = grown;
		p->capacity *= 2;
		return vp_profile_stat(p, pc);
	}
	struct vp_stat *s = calloc(1, sizeof *s);
	if (!s)
		return NULL;
	s->pc = pc;
	s->min = UINT64_MAX;
	p->stats[h] = s;
	p->nstats++;
	return s;
}

static uint64_t count_hash(const uint64_t context[2], uint64_t value)
{
	return mix(value ^ mix(context[0] ^ (context[1] << 1)));
}

static struct vp_count *slot_of(struct vp_count *values, uint32_t capacity,
				const uint64_t context[2], uint64_t value)
{
	uint32_t h = (uint32_t)count_hash(context, value) & (capacity - 1);
	for (;; h = (h + 1) & (capacity - 1)) {
		struct vp_count *c = &values[h];
		if (!c->count || (c->value == value && c->context[0] == context[0] &&
				  c->context[1] == context[1]))
			return c;
	}
}

/* Twice the room (the table stays at most half full, so a probe ends soon). */
static int grow(struct vp_stat *s)
{
	uint32_t capacity = s->capacity ? 2 * s->capacity : 8;
	struct vp_count *values = calloc(capacity, sizeof *values);
	if (!values)
		return -1;
	for (uint32_t i = 0; i < s->capacity; i++)
		if (s->values[i].count)
			*slot_of(values, capacity, s->values[i].context, s->values[i].value) =
			    s->values[i];
	free(s->values);
	s->values = values;
	s->capacity = capacity;
	return 0;
}

int vp_profile_add(const struct vp_profile *p, struct vp_stat *s, const struct vprof_sample *x)
{
	s->samples++;
	s->min = x->value < s->min ? x->value : s->min;
	s->max = x->value > s->max ? x->value : s->max;
	if (s->capacity) {
		struct vp_count *c = slot_of(s->values, s->capacity, x->context, x->value);
		if (c->count) {
			c->count++;
			return 0;
		}
	}
	if (s->nvalues >= p->values_kept) {
		s->other++;
		return 0;
	}
	if (2 * (s->nvalues + 1) > s->capacity && grow(s))
		return -1;
	struct vp_count *c = slot_of(s->values, s->capacity, x->context, x->value);
	*c = (struct vp_count){{x->context[0], x->context[1]}, x->value, 1};
	s->nvalues++;
	return 0;
}

static int by_pc(const void *a, const void *b)
{
	uint64_t x = (*(struct vp_stat *const *)a)->pc, y = (*(struct vp_stat *const *)b)->pc;
	return x < y ? -1 : x > y;
}

static int cmp_u64(uint64_t x, uint64_t y)
{
	return x < y ? -1 : x > y;
}

static int by_count(const void *a, const void *b)
{
	const struct vp_count *x = a, *y = b;
	int c = cmp_u64(y->count, x->count);
	if (!c)
		c = cmp_u64(x->value, y->value);
	if (!c)
		c = cmp_u64(x->context[0], y->context[0]);
	return c ? c : cmp_u64(x->context[1], y->context[1]);
}

void vp_profile_sort(struct vp_profile *p)
{
	size_t n = 0;
	for (size_t i = 0; i < p->capacity; i++)
		if (p->stats[i])
			p->stats[n++] = p->stats[i];
	for (size_t i = n; i < p->capacity; i++)
		p->stats[i] = NULL;
	qsort(p->stats, n, sizeof *p->stats, by_pc);
	for (size_t i = 0; i < n; i++) {
		struct vp_stat *s = p->stats[i];
		uint32_t k = 0;
		for (uint32_t j = 0; j < s->capacity; j++)
			if (s->values[j].count)
				s->values[k++] = s->values[j];
		s->capacity = k;
		qsort(s->values, k, sizeof *s->values, by_count);
	}
}

void vp_profile_free(struct vp_profile *p)
{
	if (!p)
		return;
	for (size_t i = 0; i < p->capacity; i++)
		if (p->stats[i]) {
			free(p->stats[i]->values);
			free(p->stats[i]);
		}
	for (size_t i = 0; i < p->nimages; i++)
		free(p->images[i].path);
	free(p->images);
	free(p->stats);
	free(p->name);
	free(p->plugin);
	free(p);
}

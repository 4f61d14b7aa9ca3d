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
	p->sample = 1;
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
	/* On a cache line of its own: its first line is what each sample touches. */
	struct vp_stat *s = aligned_alloc(64, (sizeof *s + 63) & ~(size_t)63);
	if (!s)
		return NULL;
	memset(s, 0, sizeof *s);
	s->pc = pc;
	s->min = UINT64_MAX;
	p->stats[h] = s;
	p->nstats++;
	return s;
}

/* Fibonacci hashing: consecutive values (addresses, counters) spread over the table. */
static uint32_t slot_hash(const uint64_t context[2], uint64_t value)
{
	uint64_t key =
	    value ^ context[0] * 0xc2b2ae3d27d4eb4full ^ context[1] * 0x165667b19e3779f9ull;
	return (uint32_t)((key * 0x9e3779b97f4a7c15ull) >> 32);
}

/* The slot of (context, value) in s's table, or the free slot where it goes. */
static uint32_t find(const struct vp_stat *s, const uint64_t context[2], uint64_t value)
{
	uint32_t mask = s->capacity - 1;
	for (uint32_t h = slot_hash(context, value) & mask;; h = (h + 1) & mask) {
		const struct vp_slot *slot = &s->slots[h];
		if (!slot->count || (slot->value == value &&
				     (!s->slot_contexts || (s->slot_contexts[h][0] == context[0] &&
							    s->slot_contexts[h][1] == context[1]))))
			return h;
	}
}

static void place_slot(struct vp_stat *s, uint32_t h, const uint64_t context[2],
		       struct vp_slot slot)
{
	s->slots[h] = slot;
	if (s->slot_contexts)
		memcpy(s->slot_contexts[h], context, sizeof s->slot_contexts[h]);
}

/* Twice the room (the table stays at most half full, so that a probe ends soon). */
static int grow(struct vp_stat *s, bool contexts)
{
	struct vp_stat bigger = {.capacity = s->capacity ? 2 * s->capacity : 8};
	bigger.slots = calloc(bigger.capacity, sizeof *bigger.slots);
	if (contexts)
		bigger.slot_contexts = calloc(bigger.capacity, sizeof *bigger.slot_contexts);
	if (!bigger.slots || (contexts && !bigger.slot_contexts)) {
		free(bigger.slots);
		free(bigger.slot_contexts);
		return -1;
	}
	static const uint64_t none[2];
	for (uint32_t i = 0; i < s->capacity; i++) {
		if (!s->slots[i].count)
			continue;
		const uint64_t *context = contexts ? s->slot_contexts[i] : none;
		place_slot(&bigger, find(&bigger, context, s->slots[i].value), context,
			   s->slots[i]);
	}
	free(s->slots);
	free(s->slot_contexts);
	s->slots = bigger.slots;
	s->slot_contexts = bigger.slot_contexts;
	s->capacity = bigger.capacity;
	return 0;
}

void vp_profile_prefetch(const struct vp_profile *p, const struct vp_stat *s,
			 const struct vprof_sample *x)
{
	static const uint64_t none[2];
	if (!s->capacity)
		return;
	uint32_t h = slot_hash(p->contexts ? x->context : none, x->value) & (s->capacity - 1);
	__builtin_prefetch(&s->slots[h]);
}

int vp_profile_add(const struct vp_profile *p, struct vp_stat *s, const struct vprof_sample *x)
{
	static const uint64_t none[2];
	const uint64_t *context = p->contexts ? x->context : none;
	s->samples++;
	s->min = x->value < s->min ? x->value : s->min;
	s->max = x->value > s->max ? x->value : s->max;
	uint32_t h = s->capacity ? find(s, context, x->value) : 0;
	if (!s->capacity || !s->slots[h].count) {
		if (s->nvalues >= p->values_kept)
			return 0; /* counted as `other` by vp_profile_sort */
		if (2 * (s->nvalues + 1) > s->capacity) {
			if (grow(s, p->contexts != 0))
				return -1;
			h = find(s, context, x->value);
		}
		place_slot(s, h, context, (struct vp_slot){x->value, 0});
		s->nvalues++;
	}
	s->slots[h].count++;
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

int vp_profile_sort(struct vp_profile *p)
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
		if (!(s->values = calloc(s->nvalues + 1, sizeof *s->values)))
			return -1;
		uint32_t k = 0;
		s->other = s->samples;
		for (uint32_t j = 0; j < s->capacity; j++) {
			if (!s->slots[j].count)
				continue;
			s->other -= s->slots[j].count;
			s->values[k] = (struct vp_count){.value = s->slots[j].value,
							 .count = s->slots[j].count};
			if (s->slot_contexts)
				memcpy(s->values[k].context, s->slot_contexts[j],
				       sizeof s->values[k].context);
			k++;
		}
		qsort(s->values, k, sizeof *s->values, by_count);
		free(s->slots);
		free(s->slot_contexts);
		s->slots = NULL;
		s->slot_contexts = NULL;
		s->capacity = 0;
	}
	return 0;
}

void vp_profile_free(struct vp_profile *p)
{
	if (!p)
		return;
	for (size_t i = 0; i < p->capacity; i++)
		if (p->stats[i]) {
			free(p->stats[i]->slots);
			free(p->stats[i]->slot_contexts);
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

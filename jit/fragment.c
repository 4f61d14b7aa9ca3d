#include "fragment.h"

#include <string.h>

#include "rt_alloc.h"
#include "x86_emit.h"

enum {
	/* The table grows with the fragments (to one bucket each, at most HASH_MAX_BITS): a
	 * short process's few thousand fragments touch 8 of its pages, not all 128. */
	HASH_MIN_BITS = 12,
	HASH_MAX_BITS = 16,
	POOL_CHUNK = 1 << 20,
	PAGE_SET_BITS = 14,
	PAGE_SET_SIZE = 1 << PAGE_SET_BITS,
};

static struct fragment *buckets[1 << HASH_MAX_BITS];
static unsigned hash_bits = HASH_MIN_BITS;
static size_t count;
static uint64_t generation;
static uint64_t retirements; /* full or partial: a fragment may have stopped being current */

/* Metadata pool: a list of chunks, each starting with a link to the previous one. */
struct pool_chunk {
	struct pool_chunk *prev;
	size_t used;
	size_t cap;
	_Alignas(16) unsigned char data[];
};
/* Every fragment ever made since the last reclaim, in allocation order. Code is allocated
 * upwards within each arena, so the list is sorted within runs that share an arena; a
 * lookup scans runs and bisects inside them. */
static struct fragment **by_address;
static size_t indexed, index_cap;

static struct pool_chunk *pool;	   /* the current generation's */
static struct pool_chunk *retired; /* older generations', until reclaimed */
static struct jit_exit *linkable;  /* the current generation's direct exits */

/* Pages holding translated app code: open addressing on page numbers (0 = empty). When it
 * fills, it degrades to "everything may be translated", which only costs extra flushes. */
static uint64_t pages[PAGE_SET_SIZE];
static size_t page_count;
static bool pages_overflowed;

static uint64_t mix(uint64_t key)
{
	return key * 0x9e3779b97f4a7c15ull;
}

static size_t bucket_of(uint64_t pc)
{
	return (size_t)(mix(pc) >> (64 - hash_bits));
}

static size_t buckets_used(void)
{
	return (size_t)1 << hash_bits;
}

/* Twice the buckets. A bucket's fragments all go to the two that replace it (the hash is
 * the top bits), in the order they had: the newest of a pc stays first. */
static void grow_buckets(void)
{
	struct fragment *all = NULL; /* each chain reversed, in turn */
	for (size_t h = 0; h < buckets_used(); h++)
		while (buckets[h]) {
			struct fragment *f = buckets[h];
			buckets[h] = f->hash_next;
			f->hash_next = all;
			all = f;
		}
	hash_bits++;
	while (all) {
		struct fragment *f = all;
		all = f->hash_next;
		size_t h = bucket_of(f->app_pc);
		f->hash_next = buckets[h];
		buckets[h] = f;
	}
}

void *fragment_meta_alloc(size_t size)
{
	size = (size + 15) & ~(size_t)15;
	if (!pool || pool->cap - pool->used < size) {
		size_t cap = size > POOL_CHUNK ? size : POOL_CHUNK;
		struct pool_chunk *c = rt_alloc(sizeof *c + cap);
		if (!c)
			return NULL;
		c->prev = pool;
		c->used = 0;
		c->cap = cap;
		pool = c;
	}
	void *p = pool->data + pool->used;
	pool->used += size;
	return p;
}

static void page_set_add(uint64_t page)
{
	if (pages_overflowed)
		return;
	size_t i = (size_t)(mix(page) >> (64 - PAGE_SET_BITS));
	while (pages[i] && pages[i] != page)
		i = (i + 1) & (PAGE_SET_SIZE - 1);
	if (pages[i])
		return;
	if (page_count * 4 >= PAGE_SET_SIZE * 3) {
		pages_overflowed = true;
		return;
	}
	pages[i] = page;
	page_count++;
}

static bool page_set_has(uint64_t page)
{
	if (pages_overflowed)
		return true;
	size_t i = (size_t)(mix(page) >> (64 - PAGE_SET_BITS));
	while (pages[i]) {
		if (pages[i] == page)
			return true;
		i = (i + 1) & (PAGE_SET_SIZE - 1);
	}
	return false;
}

struct fragment *fragment_lookup(uint64_t app_pc)
{
	for (struct fragment *f = buckets[bucket_of(app_pc)]; f; f = f->hash_next)
		if (f->app_pc == app_pc)
			return f;
	return NULL;
}

void fragment_insert(struct fragment *f)
{
	size_t h = bucket_of(f->app_pc);
	f->hash_next = buckets[h];
	buckets[h] = f;
	if (++count > buckets_used() && hash_bits < HASH_MAX_BITS)
		grow_buckets();
	/* page numbers are stored +1 so that page 0 differs from an empty slot */
	for (uint64_t p = f->app_pc >> 12; p <= (f->app_end - 1) >> 12; p++)
		page_set_add(p + 1);
}

bool fragment_range_translated(uint64_t start, uint64_t end)
{
	if (count == 0 || end <= start)
		return false;
	uint64_t first = start >> 12, last = (end - 1) >> 12;
	if (last - first > PAGE_SET_SIZE) {
		for (size_t i = 0; i < PAGE_SET_SIZE; i++)
			if (pages[i] && pages[i] - 1 >= first && pages[i] - 1 <= last)
				return true;
		return pages_overflowed;
	}
	for (uint64_t p = first; p <= last; p++)
		if (page_set_has(p + 1))
			return true;
	return false;
}

struct jit_exit *fragment_new_exit(enum exit_kind kind, uint64_t target)
{
	struct jit_exit *rec = fragment_meta_alloc(sizeof *rec);
	if (!rec)
		return NULL;
	*rec = (struct jit_exit){.kind = kind, .target = target, .generation = generation};
	if (kind == EXIT_DIRECT) {
		rec->next_linkable = linkable;
		linkable = rec;
	}
	return rec;
}

static void forget_fragments(void)
{
	memset(buckets, 0, buckets_used() * sizeof buckets[0]);
	memset(pages, 0, sizeof pages);
	page_count = 0;
	pages_overflowed = false;
	count = 0;
	linkable = NULL;
	generation++;
}

void fragment_retire_all(void)
{
	for (struct jit_exit *e = linkable; e; e = e->next_linkable) {
		if (e->linked) {
			patch_rel32(e->branch_field, e->stub);
			e->linked = false;
		}
	}
	/* Move the pool's chunks onto the retired list. */
	while (pool) {
		struct pool_chunk *prev = pool->prev;
		pool->prev = retired;
		retired = pool;
		pool = prev;
	}
	forget_fragments();
	retirements++;
}

/* The first of the sorted pcs that is >= pc (n when none). */
static size_t first_at_or_after(const uint64_t *pcs, size_t n, uint64_t pc)
{
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (pcs[mid] < pc)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

size_t fragment_retire_holding(const uint64_t *pcs, size_t n)
{
	size_t removed = 0;
	for (size_t h = 0; h < buckets_used(); h++) {
		for (struct fragment **link = &buckets[h]; *link;) {
			struct fragment *f = *link;
			size_t i = first_at_or_after(pcs, n, f->app_pc);
			if (i < n && pcs[i] < f->app_end) {
				*link = f->hash_next;
				count--;
				removed++;
			} else {
				link = &f->hash_next;
			}
		}
	}
	if (!removed)
		return 0;
	/* Branches into a fragment no longer current go back to their stubs. (A retired
	 * fragment's own exits stay: a thread inside it finishes its block through them.) */
	for (struct jit_exit *e = linkable; e; e = e->next_linkable) {
		if (e->linked && !fragment_lookup(e->target)) {
			patch_rel32(e->branch_field, e->stub);
			e->linked = false;
		}
	}
	retirements++;
	return removed;
}

uint64_t fragment_retirements(void)
{
	return retirements;
}

static void free_chunks(struct pool_chunk *c)
{
	while (c) {
		struct pool_chunk *prev = c->prev;
		rt_free(c);
		c = prev;
	}
}

void fragment_index(struct fragment *f)
{
	if (indexed == index_cap) {
		size_t ncap = index_cap ? index_cap * 2 : 4096;
		struct fragment **n = rt_realloc(by_address, ncap * sizeof *n);
		if (!n)
			return; /* only costs precision of fault reports */
		by_address = n;
		index_cap = ncap;
	}
	by_address[indexed++] = f;
}

static bool holds(const struct fragment *f, uint64_t pc)
{
	return pc >= (uint64_t)f->indirect_entry &&
	       pc < (uint64_t)f->indirect_entry + f->cache_size;
}

struct fragment *fragment_at_cache_pc(uint64_t pc)
{
	size_t run = 0;
	while (run < indexed) {
		/* A run: consecutive fragments with increasing addresses. */
		size_t end = run + 1;
		while (end < indexed &&
		       by_address[end]->indirect_entry > by_address[end - 1]->indirect_entry)
			end++;
		size_t lo = run, hi = end;
		while (hi - lo > 1) {
			size_t mid = (lo + hi) / 2;
			if ((uint64_t)by_address[mid]->indirect_entry <= pc)
				lo = mid;
			else
				hi = mid;
		}
		if (holds(by_address[lo], pc))
			return by_address[lo];
		run = end;
	}
	return NULL;
}

const struct insn_map *fragment_insn_at(const struct fragment *f, uint64_t cache_pc)
{
	uint64_t off = cache_pc - (uint64_t)f->indirect_entry;
	const struct insn_map *best = NULL;
	for (uint32_t i = 0; i < f->insn_count && f->insns[i].cache_off <= off; i++)
		best = &f->insns[i];
	return best;
}

void fragment_unlink(struct fragment *f)
{
	for (uint32_t i = 0; i < f->exit_count; i++) {
		struct jit_exit *e = f->exits[i];
		if (e->linked) {
			patch_rel32(e->branch_field, e->stub);
			e->linked = false;
		}
	}
}

void fragment_unlink_all(void)
{
	for (size_t i = 0; i < indexed; i++)
		fragment_unlink(by_address[i]);
}

void fragment_reclaim(void)
{
	indexed = 0;
	free_chunks(pool);
	free_chunks(retired);
	pool = retired = NULL;
	forget_fragments();
	retirements++;
}

uint64_t fragment_generation(void)
{
	return generation;
}

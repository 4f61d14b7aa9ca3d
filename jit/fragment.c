#include "fragment.h"

#include <string.h>
#include <sys/mman.h>

#include "rt_alloc.h"
#include "rt_syscall.h"
#include "x86_emit.h"

enum {
	/* The table of current fragments grows with them (at most half full): a short
	 * process's few thousand fragments touch a few of its pages. */
	TABLE_MIN_BITS = 12,
	POOL_CHUNK = 1 << 20,
	PAGE_SET_BITS = 14,
	PAGE_SET_SIZE = 1 << PAGE_SET_BITS,
};

/* The current fragment of each app pc: open addressing with linear probing, the pc kept
 * in the slot so that a lookup costs one cache miss, not one per fragment of a chain. */
struct table_slot {
	uint64_t key; /* the app pc + 1 (0: empty) */
	struct fragment *f;
};
static struct table_slot *table;
static unsigned table_bits;
static size_t count;
static uint64_t generation;
static uint64_t retirements; /* full or partial: a fragment may have stopped being current */

/* Metadata pool: a list of chunks, each starting with a link to the previous one. */
struct pool_chunk {
	struct pool_chunk *prev;
	size_t used;
	size_t populated; /* bytes of data faulted in (rt_populate_ahead) */
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

/* Populated: lookups read a slot before an insertion writes it, and a page read first is
 * the shared zero page, whose replacement at the write flushes the TLB of every CPU the
 * process runs on (an interrupt to each: the writer thread's, when recording). */
static struct table_slot *table_new(unsigned bits)
{
	long r = rt_mmap(NULL, sizeof(struct table_slot) << bits, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
	return rt_is_error(r) ? NULL : (struct table_slot *)r;
}

static void table_free(struct table_slot *t, unsigned bits)
{
	if (t)
		rt_munmap(t, sizeof(struct table_slot) << bits);
}

size_t fragment_pc_slot(uint64_t pc, unsigned bits)
{
	return (size_t)(((pc >> 2) + (mix(pc >> 22) >> 32)) & (((size_t)1 << bits) - 1));
}

/* Where key is, or the empty slot where it would go. */
static struct table_slot *find_slot(struct table_slot *t, unsigned bits, uint64_t key)
{
	size_t mask = ((size_t)1 << bits) - 1;
	for (size_t i = fragment_pc_slot(key, bits);; i = (i + 1) & mask)
		if (t[i].key == key || !t[i].key)
			return &t[i];
}

/* An empty table of 2^bits slots holding the fragments of the current one that `keep`
 * accepts (all when NULL). False, and the table as it was, when out of memory. */
static bool rebuild(unsigned bits, bool (*keep)(const struct fragment *f, void *arg), void *arg)
{
	struct table_slot *fresh = table_new(bits);
	if (!fresh)
		return false;
	size_t kept = 0;
	for (size_t i = 0; table && i < ((size_t)1 << table_bits); i++) {
		if (!table[i].key || (keep && !keep(table[i].f, arg)))
			continue;
		*find_slot(fresh, bits, table[i].key) = table[i];
		kept++;
	}
	table_free(table, table_bits);
	table = fresh;
	table_bits = bits;
	count = kept;
	return true;
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
		c->populated = 0;
		c->cap = cap;
		pool = c;
	}
	void *p = pool->data + pool->used;
	pool->used += size;
	pool->populated = rt_populate_ahead(pool->data, pool->populated, pool->used, pool->cap);
	return p;
}

/* Neighbouring pages in neighbouring slots (each 2 MiB at an offset of its own): a short
 * process's code pages touch a few pages of the set, not one each. */
static size_t page_slot(uint64_t page)
{
	return (size_t)((page + (mix(page >> 9) >> 32)) & (PAGE_SET_SIZE - 1));
}

static void page_set_add(uint64_t page)
{
	if (pages_overflowed)
		return;
	size_t i = page_slot(page);
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
	size_t i = page_slot(page);
	while (pages[i]) {
		if (pages[i] == page)
			return true;
		i = (i + 1) & (PAGE_SET_SIZE - 1);
	}
	return false;
}

void fragment_expect(size_t n)
{
	unsigned bits = TABLE_MIN_BITS;
	while (((size_t)1 << bits) < n * 2)
		bits++;
	if (!table || bits > table_bits)
		rebuild(bits, NULL, NULL);
}

struct fragment *fragment_lookup(uint64_t app_pc)
{
	return table ? find_slot(table, table_bits, app_pc + 1)->f : NULL;
}

bool fragment_insert(struct fragment *f)
{
	if (!table && !rebuild(TABLE_MIN_BITS, NULL, NULL))
		return false;
	if ((count + 1) * 2 > ((size_t)1 << table_bits) && !rebuild(table_bits + 1, NULL, NULL))
		return false;
	struct table_slot *slot = find_slot(table, table_bits, f->app_pc + 1);
	count += !slot->key;
	*slot = (struct table_slot){f->app_pc + 1, f}; /* a newer translation replaces one */
	/* page numbers are stored +1 so that page 0 differs from an empty slot */
	for (uint64_t p = f->app_pc >> 12; p <= (f->app_end - 1) >> 12; p++)
		page_set_add(p + 1);
	return true;
}

void fragment_depends_on(uint64_t start, uint64_t end)
{
	for (uint64_t p = start >> 12; p <= (end - 1) >> 12; p++)
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
	struct jit_exit *rec = fragment_meta_alloc(
	    kind == EXIT_CALLOUT ? sizeof(struct jit_callout_exit) : sizeof *rec);
	if (!rec)
		return NULL;
	if (kind == EXIT_CALLOUT)
		*jit_callout_exit_of(rec) = (struct jit_callout_exit){0};
	*rec = (struct jit_exit){.kind = kind, .target = target, .generation = generation};
	if (kind == EXIT_DIRECT) {
		rec->next_linkable = linkable;
		linkable = rec;
	}
	return rec;
}

static void forget_fragments(void)
{
	table_free(table, table_bits);
	table = NULL;
	if (page_count || pages_overflowed) /* (128 KiB, not touched yet in a new process) */
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
		if (e->linked)
			fragment_unlink_exit(e);
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

struct sorted_pcs {
	const uint64_t *pcs;
	size_t n;
};

static bool holds_none(const struct fragment *f, void *arg)
{
	const struct sorted_pcs *p = arg;
	if (f->inside)
		f = f->inside;
	size_t i = first_at_or_after(p->pcs, p->n, f->app_pc);
	return i == p->n || p->pcs[i] >= f->app_end;
}

size_t fragment_retire_holding(const uint64_t *pcs, size_t n)
{
	if (!table)
		return 0;
	size_t before = count;
	struct sorted_pcs p = {pcs, n};
	if (!rebuild(table_bits, holds_none, &p)) {
		/* No memory for a new table: everything goes. */
		fragment_retire_all();
		return before;
	}
	size_t removed = before - count;
	if (!removed)
		return 0;
	/* Branches into a fragment no longer current go back to their stubs, and so do the
	 * block ends inside one. (A retired fragment's other exits stay: a thread inside it
	 * finishes its block through them.) */
	for (struct jit_exit *e = linkable; e; e = e->next_linkable) {
		bool stale =
		    e->falls_through ? !fragment_is_current(e->owner) : !fragment_lookup(e->target);
		if (e->linked && stale)
			fragment_unlink_exit(e);
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

/* The fragment whose entry f's mismatch jump leads to, if linked. */
static struct fragment *mismatch_next(const struct fragment *f)
{
	const struct jit_exit *e = f->mismatch_link;
	return e && e->linked ? fragment_lookup(e->target) : NULL;
}

void fragment_link_mismatch(struct fragment *f, struct fragment *g)
{
	enum { MAX_ENTRIES_AFTER = 3 };
	if (mismatch_next(f) || !rel32_reaches(f->mismatch_field, g->indirect_entry))
		return;
	const struct fragment *h = g;
	for (int n = 0; h; n++, h = mismatch_next(h))
		if (h == f || n == MAX_ENTRIES_AFTER)
			return;
	struct jit_exit *e = f->mismatch_link;
	if (!e) {
		/* (its stub: the jump to the lookup's miss right after the mismatch jump) */
		e = fragment_new_exit(EXIT_DIRECT, g->app_pc);
		if (!e)
			return;
		e->branch_field = f->mismatch_field;
		e->stub = f->mismatch_field + 4;
		f->mismatch_link = e;
	}
	e->target = g->app_pc;
	patch_rel32(e->branch_field, g->indirect_entry);
	e->linked = true;
}

void fragment_unlink_exit(struct jit_exit *e)
{
	if (e->falls_through)
		patch_fall_through(e->branch_field, e->stub);
	else
		patch_rel32(e->branch_field, e->stub);
	e->linked = false;
}

bool fragment_is_current(const struct fragment *f)
{
	return fragment_lookup(f->app_pc) == f;
}

void fragment_unlink(struct fragment *f)
{
	for (uint32_t i = 0; i < f->exit_count; i++) {
		struct jit_exit *e = f->exits[i];
		if (e->linked)
			fragment_unlink_exit(e);
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

#include "code_cache.h"

#include <errno.h>
#include <sys/mman.h>

#include "rt_syscall.h"

enum {
	ARENA_SIZE = 32 << 20,
	MAX_ARENAS = 64,
	/* An arena serves app code within this distance, leaving the rest of the +-2 GiB
	 * rel32 reach for the data that code addresses. Above 1 GiB: a non-PIE executable
	 * (Debian's python3.11 at 0x400000) has the 1 GiB reservation of its brk heap right
	 * after it and too little room below, and its RIP-relative operands would each borrow
	 * a register through the thread block (a python loop: 15% of its time). */
	ARENA_REACH = 3 << 29,
};

struct arena {
	uint8_t *base;
	uint8_t *cur;
	uint8_t *end;
	size_t populated; /* bytes from base faulted in (rt_populate_ahead) */
	unsigned segment;
};

static struct arena arenas[MAX_ARENAS];
static int arena_count;
static unsigned current_segment;
static size_t bytes_committed;

static uint64_t distance(uint64_t a, uint64_t b)
{
	return a > b ? a - b : b - a;
}

static uint8_t *map_arena_at(uint64_t hint)
{
	long r = rt_mmap(
	    (void *)hint, ARENA_SIZE, PROT_READ | PROT_WRITE | PROT_EXEC,
	    MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | (hint ? MAP_FIXED_NOREPLACE : 0), -1, 0);
	if (rt_is_error(r))
		return NULL;
	if (hint && (uint64_t)r != hint) { /* old kernels treat the flag as a hint */
		rt_munmap((void *)r, ARENA_SIZE);
		return NULL;
	}
	return (uint8_t *)r;
}

static struct arena *add_arena(uint8_t *base, unsigned segment)
{
	struct arena *a = &arenas[arena_count++];
	*a = (struct arena){base, base, base + ARENA_SIZE, 0, segment};
	return a;
}

/* Tries slots at growing distance from app_pc, below first (below an image is usually
 * free, above it the app's heap and libraries will grow). */
static struct arena *new_arena_near(uint64_t app_pc)
{
	if (arena_count == MAX_ARENAS)
		return NULL;
	uint64_t anchor = app_pc & ~(uint64_t)(ARENA_SIZE - 1);
	uint8_t *base = NULL;
	for (uint64_t step = 1; !base && step * ARENA_SIZE < ARENA_REACH; step++) {
		uint64_t off = step * ARENA_SIZE;
		if (anchor > off + 0x10000000)
			base = map_arena_at(anchor - off);
		if (!base && anchor + off < 0x7ff000000000)
			base = map_arena_at(anchor + off);
	}
	if (!base)
		base = map_arena_at(0);
	return base ? add_arena(base, current_segment) : NULL;
}

/* The arena's room for `size` more bytes, its pages faulted in ahead. */
static uint8_t *room_in(struct arena *a, size_t size)
{
	a->populated =
	    rt_populate_ahead(a->base, a->populated, (size_t)(a->cur - a->base) + size, ARENA_SIZE);
	return a->cur;
}

uint8_t *code_cache_reserve(uint64_t app_pc, size_t size)
{
	struct arena *fallback = NULL;
	for (int i = 0; i < arena_count; i++) {
		struct arena *a = &arenas[i];
		if (a->segment != current_segment || (size_t)(a->end - a->cur) < size)
			continue;
		if (distance((uint64_t)a->base, app_pc) < ARENA_REACH)
			return room_in(a, size);
		fallback = a;
	}
	struct arena *a = new_arena_near(app_pc);
	if (!a)
		a = fallback;
	return a ? room_in(a, size) : NULL;
}

void code_cache_commit(uint8_t *start, size_t used)
{
	for (int i = 0; i < arena_count; i++) {
		if (arenas[i].cur == start) {
			arenas[i].cur += used;
			bytes_committed += used;
			return;
		}
	}
}

void code_cache_reset(void)
{
	for (int i = 0; i < arena_count; i++)
		arenas[i].cur = arenas[i].base; /* (populated as it was) */
}

int code_cache_contains(uint64_t addr)
{
	for (int i = 0; i < arena_count; i++)
		if (addr >= (uint64_t)arenas[i].base && addr < (uint64_t)arenas[i].end)
			return 1;
	return 0;
}

size_t code_cache_bytes_used(void)
{
	return bytes_committed;
}

void code_cache_set_segment(unsigned segment)
{
	current_segment = segment;
}

uint8_t *code_cache_adopt(uint64_t base, size_t used, unsigned segment)
{
	if (arena_count == MAX_ARENAS || used > ARENA_SIZE || !base || base % 4096)
		return NULL;
	uint8_t *at = map_arena_at(base);
	if (!at)
		return NULL;
	struct arena *a = add_arena(at, segment);
	room_in(a, used); /* (the caller fills it at once) */
	a->cur = at + used;
	bytes_committed += used;
	return at;
}

size_t code_cache_spans(struct code_cache_span *out, size_t max, unsigned segment)
{
	size_t n = 0;
	for (int i = 0; i < arena_count && n < max; i++)
		if (arenas[i].segment == segment)
			out[n++] = (struct code_cache_span){
			    arenas[i].base, (size_t)(arenas[i].cur - arenas[i].base)};
	return n;
}

size_t code_cache_segment_bytes(unsigned segment)
{
	size_t all = 0;
	for (int i = 0; i < arena_count; i++)
		if (arenas[i].segment == segment)
			all += (size_t)(arenas[i].cur - arenas[i].base);
	return all;
}

bool code_cache_in_segment(uint64_t addr, unsigned segment)
{
	for (int i = 0; i < arena_count; i++)
		if (addr >= (uint64_t)arenas[i].base && addr < (uint64_t)arenas[i].end)
			return arenas[i].segment == segment;
	return false;
}

size_t code_cache_arena_size(void)
{
	return ARENA_SIZE;
}

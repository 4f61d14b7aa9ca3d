/* Counting what the bitmap and the block counts hold, at exit. The bitmap is sparse in a
 * huge reservation: mincore finds its pages that were ever written. */
#include <sys/mman.h>

#include "block_counts.h"
#include "footprint_internal.h"
#include "jit_messages.h"
#include "rt_alloc.h"
#include "rt_format.h"
#include "rt_sort.h"
#include "rt_syscall.h"

#define EVEN_BITS 0x5555555555555555ull

enum { CHUNK_PAGES = 1 << 18 }; /* bitmap scanned 1 GiB at a time */

/* (__builtin_popcountll calls into libgcc without -mpopcnt) */
static unsigned popcount(uint64_t x)
{
	x = x - ((x >> 1) & EVEN_BITS);
	x = (x & 0x3333333333333333ull) + ((x >> 2) & 0x3333333333333333ull);
	x = (x + (x >> 4)) & 0x0f0f0f0f0f0f0f0full;
	return (unsigned)((x * 0x0101010101010101ull) >> 56);
}

struct tally {
	uint64_t lines[3], pages[3]; /* loads, stores, data (either) */
};

static void tally_words(struct tally *t, const uint64_t *w, size_t n)
{
	/* Two words are one app page: 64 lines of (read, write) bits. */
	for (size_t i = 0; i + 1 < n; i += 2) {
		uint64_t a = w[i], b = w[i + 1];
		if (!(a | b))
			continue;
		uint64_t reads[2] = {a & EVEN_BITS, b & EVEN_BITS};
		uint64_t writes[2] = {(a >> 1) & EVEN_BITS, (b >> 1) & EVEN_BITS};
		uint64_t any[2] = {reads[0] | writes[0], reads[1] | writes[1]};
		uint64_t *kinds[3] = {reads, writes, any};
		for (int k = 0; k < 3; k++) {
			unsigned lines = popcount(kinds[k][0]) + popcount(kinds[k][1]);
			t->lines[k] += lines;
			t->pages[k] += lines != 0;
		}
	}
}

static void tally_bitmap(struct tally *t)
{
	unsigned char *resident = rt_alloc(CHUNK_PAGES);
	if (!resident)
		return;
	const uint64_t chunk = (uint64_t)CHUNK_PAGES * 4096;
	for (uint64_t off = 0; off < FOOTPRINT_BITMAP_BYTES; off += chunk) {
		uint8_t *base = (uint8_t *)footprint_lines + off;
		if (rt_syscall3(SYS_mincore, (long)base, (long)chunk, (long)resident) < 0)
			continue;
		for (size_t p = 0; p < CHUNK_PAGES; p++)
			if (resident[p] & 1)
				tally_words(t, (const uint64_t *)(base + p * 4096), 4096 / 8);
	}
	rt_free(resident);
}

struct code_lines {
	uint64_t *v;
	size_t n, cap;
};

static void add_code(const struct counted_block *b, uint32_t first, uint32_t end, uint64_t times,
		     void *arg)
{
	(void)times;
	struct code_lines *c = arg;
	uint64_t lo = b->pc + b->insns[first].offset;
	const struct counted_insn *last = &b->insns[end - 1];
	uint64_t hi = b->pc + last->offset + last->length;
	for (uint64_t line = lo >> 6; line <= (hi - 1) >> 6; line++) {
		if (c->n == c->cap) {
			size_t cap = c->cap ? 2 * c->cap : 4096;
			uint64_t *v = rt_realloc(c->v, cap * sizeof *v);
			if (!v)
				return;
			c->v = v;
			c->cap = cap;
		}
		c->v[c->n++] = line;
	}
}

static int by_value(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

static bool data_line(uint64_t line)
{
	uint64_t bit = 2 * (line & ((1ull << (FOOTPRINT_ADDRESS_BITS - 6)) - 1));
	return (footprint_lines[bit / 64] >> (bit % 64)) & 3;
}

static bool data_page(uint64_t page)
{
	const uint64_t *w =
	    &footprint_lines[2 * (page & ((1ull << (FOOTPRINT_ADDRESS_BITS - 12)) - 1))];
	return w[0] | w[1];
}

void footprint_report(int fd)
{
	struct tally t = {0};
	tally_bitmap(&t);
	struct code_lines code = {0};
	for (size_t i = 0; i < jit_thread_count(); i++)
		block_counts_for_thread(jit_thread_id(jit_thread_at(i)), add_code, &code);
	rt_sort(code.v, code.n, sizeof *code.v, by_value);
	uint64_t code_lines = 0, code_pages = 0, shared_lines = 0, shared_pages = 0;
	for (size_t i = 0; i < code.n; i++) {
		if (i && code.v[i] == code.v[i - 1])
			continue;
		code_lines++;
		shared_lines += data_line(code.v[i]);
		uint64_t page = code.v[i] >> 6;
		if (code_lines > 1 && page == code.v[i - 1] >> 6)
			continue; /* (the sorted lines of one page are adjacent) */
		code_pages++;
		shared_pages += data_page(page);
	}
	rt_free(code.v);
	rt_dprintf(fd, "footprint loads lines %lu pages %lu\n", t.lines[0], t.pages[0]);
	rt_dprintf(fd, "footprint stores lines %lu pages %lu\n", t.lines[1], t.pages[1]);
	rt_dprintf(fd, "footprint code lines %lu pages %lu\n", code_lines, code_pages);
	rt_dprintf(fd, "footprint total lines %lu pages %lu\n",
		   t.lines[2] + code_lines - shared_lines, t.pages[2] + code_pages - shared_pages);
	if (block_counts_threads_dropped() || block_counts_blocks_dropped())
		jit_message(
		    "warning: -footprint: %u threads and %lu blocks beyond the tool's limits "
		    "were not counted",
		    block_counts_threads_dropped(), block_counts_blocks_dropped());
}

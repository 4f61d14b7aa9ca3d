/* Counting what the map and the block counts hold, at exit. The map is sparse in a huge
 * reservation: mincore finds its pages that were ever written, among those of the
 * addresses ever mapped. */
#include <fcntl.h>
#include <sys/mman.h>

#include "block_counts.h"
#include "footprint_internal.h"
#include "jit_app.h"
#include "jit_messages.h"
#include "rt_alloc.h"
#include "rt_format.h"
#include "rt_sort.h"
#include "rt_syscall.h"

enum {
	CHUNK_PAGES = 1 << 18,	/* map scanned 1 GiB at a time */
	MAP_PAGE_SHIFT = 17,	/* a map page holds the lines of 128 KiB of addresses */
	APP_PAGE_BYTES = 2 * 64 /* the map's bytes of an app page: 64 lines, read and write */
};

struct tally {
	uint64_t lines[3], pages[3]; /* loads, stores, data (either) */
};

static void tally_bytes(struct tally *t, const uint8_t *m, size_t n)
{
	for (size_t page = 0; page + APP_PAGE_BYTES <= n; page += APP_PAGE_BYTES) {
		unsigned lines[3] = {0, 0, 0};
		for (size_t b = page; b < page + APP_PAGE_BYTES; b += 2) {
			lines[0] += m[b] != 0;
			lines[1] += m[b + 1] != 0;
			lines[2] += (m[b] | m[b + 1]) != 0;
		}
		for (int k = 0; k < 3; k++) {
			t->lines[k] += lines[k];
			t->pages[k] += lines[k] != 0;
		}
	}
}

/* Runs of map pages that may hold marks: those of every address range mapped now (all
 * of the process's, from /proc/self/maps: the stack as it grew, the runtime's own too) or
 * once (jit_app_map_retired_foreach). Scanning only them spares asking the kernel about
 * the whole reservation (4 TiB). */
struct page_runs {
	struct page_run {
		uint64_t first, last;
	} * v;
	size_t n, cap;
};

static int add_range(uint64_t start, uint64_t end, void *arg)
{
	struct page_runs *r = arg;
	const uint64_t mask = (1ull << FOOTPRINT_ADDRESS_BITS) - 1;
	if (end <= start)
		return 0;
	if (r->n == r->cap) {
		size_t cap = r->cap ? 2 * r->cap : 256;
		struct page_run *v = rt_realloc(r->v, cap * sizeof *v);
		if (!v)
			return 1;
		r->v = v;
		r->cap = cap;
	}
	r->v[r->n++] = (struct page_run){(start & mask) >> MAP_PAGE_SHIFT,
					 ((end - 1) & mask) >> MAP_PAGE_SHIFT};
	return 0;
}

/* add_range less the tool's own maps, which no app instruction reaches (and whose 8 TiB
 * would take mincore seconds). */
static int add_app_range(uint64_t start, uint64_t end, struct page_runs *r)
{
	uint64_t own = (uint64_t)footprint_lines, own_end = own + FOOTPRINT_MAPS_BYTES;
	if (start < own && add_range(start, end < own ? end : own, r))
		return 1;
	return end > own_end ? add_range(start > own_end ? start : own_end, end, r) : 0;
}

static bool parse_hex(const char **p, uint64_t *v)
{
	const char *q = *p;
	*v = 0;
	for (; (*q >= '0' && *q <= '9') || (*q >= 'a' && *q <= 'f'); q++)
		*v = *v * 16 + (uint64_t)(*q <= '9' ? *q - '0' : *q - 'a' + 10);
	bool ok = q != *p;
	*p = q;
	return ok;
}

/* Every "start-end" line of /proc/self/maps; false when it cannot be read. */
static bool add_process_maps(struct page_runs *r)
{
	int fd = (int)rt_openat(AT_FDCWD, "/proc/self/maps", O_RDONLY | O_CLOEXEC, 0);
	if (fd < 0)
		return false;
	size_t len = 0, cap = 1 << 16;
	char *text = rt_alloc(cap + 1);
	long got = 0;
	while (text && (got = rt_read(fd, text + len, cap - len)) > 0) {
		len += (size_t)got;
		if (len == cap) {
			char *bigger = rt_realloc(text, 2 * cap + 1);
			if (!bigger)
				break;
			text = bigger;
			cap *= 2;
		}
	}
	rt_close(fd);
	if (!text || got < 0) {
		rt_free(text);
		return false;
	}
	text[len] = 0;
	bool ok = true;
	for (const char *p = text; *p && ok;) {
		uint64_t start, end;
		if (parse_hex(&p, &start) && *p == '-' && (p++, parse_hex(&p, &end)))
			ok = !add_app_range(start, end, r);
		while (*p && *p++ != '\n')
			;
	}
	rt_free(text);
	return ok;
}

static int by_first(const void *a, const void *b)
{
	const struct page_run *x = a, *y = b;
	return x->first < y->first ? -1 : x->first > y->first;
}

/* The resident pages of map pages [first, last], through mincore. */
static void tally_run(struct tally *t, unsigned char *resident, uint64_t first, uint64_t last)
{
	for (uint64_t page = first; page <= last; page += CHUNK_PAGES) {
		uint64_t n = last - page + 1 < CHUNK_PAGES ? last - page + 1 : CHUNK_PAGES;
		uint8_t *base = footprint_lines + page * 4096;
		if (rt_syscall3(SYS_mincore, (long)base, (long)(n * 4096), (long)resident) < 0)
			continue;
		for (size_t p = 0; p < n; p++)
			if (resident[p] & 1)
				tally_bytes(t, base + p * 4096, 4096);
	}
}

static void tally_map(struct tally *t)
{
	struct page_runs runs = {0};
	unsigned char *resident = rt_alloc(CHUNK_PAGES);
	bool ranges = add_process_maps(&runs) && !jit_app_map_retired_foreach(add_range, &runs);
	if (!ranges)
		runs.n = 0; /* without /proc (or memory for the ranges): all of it, slowly */
	if (!resident || (!ranges && add_range(0, 1ull << FOOTPRINT_ADDRESS_BITS, &runs))) {
		jit_message("warning: -footprint: out of memory: the report counts no data line");
		rt_free(resident);
		rt_free(runs.v);
		return;
	}
	rt_sort(runs.v, runs.n, sizeof *runs.v, by_first);
	for (size_t i = 0; i < runs.n;) {
		uint64_t first = runs.v[i].first, last = runs.v[i].last;
		for (i++; i < runs.n && runs.v[i].first <= last + 1; i++)
			last = runs.v[i].last > last ? runs.v[i].last : last;
		tally_run(t, resident, first, last);
	}
	rt_free(resident);
	rt_free(runs.v);
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
	const uint8_t *m =
	    footprint_lines + 2 * (line & ((1ull << (FOOTPRINT_ADDRESS_BITS - 6)) - 1));
	return m[0] | m[1];
}

static bool data_page(uint64_t page)
{
	const uint8_t *m = footprint_lines +
			   APP_PAGE_BYTES * (page & ((1ull << (FOOTPRINT_ADDRESS_BITS - 12)) - 1));
	for (size_t b = 0; b < APP_PAGE_BYTES; b++)
		if (m[b])
			return true;
	return false;
}

void footprint_report(int fd)
{
	struct tally t = {0};
	tally_map(&t);
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

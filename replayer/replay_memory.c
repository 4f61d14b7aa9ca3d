#include "replay_memory.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>

#include "inject_memory.h"
#include "jit_app.h"
#include "shared_files.h"

enum { PAGE = 4096 };
#define USER_END 0x800000000000ull

static bool hold(struct replay_input *in, uint64_t start, uint64_t end, uint32_t prot, int kind)
{
	struct replay_range *grown =
	    replay_input_grow(in->ranges, in->nranges, &in->capranges, sizeof *grown, 256);
	if (!grown)
		return false;
	in->ranges = grown;
	in->ranges[in->nranges++] = (struct replay_range){start, end, prot, kind};
	return true;
}

/* mmap at exactly addr, never over anything: anonymous, or a view of memory file fd at off
 * when fd >= 0. 0, 3 when something of ours is there. */
static int map_fixed(uint64_t addr, uint64_t len, int prot, int extra, int fd, uint64_t off,
		     char *err, size_t errlen)
{
	int type = fd >= 0 ? MAP_SHARED : MAP_PRIVATE | MAP_ANONYMOUS;
	void *at = mmap((void *)addr, len, prot, type | MAP_FIXED_NOREPLACE | extra, fd,
			fd >= 0 ? (off_t)off : 0);
	if (at != MAP_FAILED && (uint64_t)at == addr)
		return 0;
	if (at != MAP_FAILED)
		munmap(at, len); /* a kernel without MAP_FIXED_NOREPLACE put it elsewhere */
	return replay_input_fail(err, errlen, errno == EEXIST || at != MAP_FAILED ? 3 : 2,
				 "the recorded range 0x%lx-0x%lx is in use by the replayer", addr,
				 addr + len);
}

/* The break's pseudo-entry: its pages are a recorded mapping of their own; the rest of its
 * reservation is claimed now. */
static int hold_brk(struct replay_input *in, const struct pinball_map_entry *m, char *err,
		    size_t errlen)
{
	uint64_t reserve = jit_app_brk_reserve_size();
	if (m->offset > reserve || m->end - m->start > reserve || m->start > USER_END - reserve)
		return replay_input_fail(err, errlen, 2,
					 "the recorded program break 0x%lx-0x%lx is impossible",
					 m->start, m->end);
	in->has_brk = true;
	in->brk_start = m->start;
	in->brk_current = m->end;
	in->brk_mapped_end = m->start + m->offset;
	uint64_t from = in->brk_mapped_end, to = m->start + reserve;
	int rc = map_fixed(from, to - from, PROT_NONE, MAP_NORESERVE, -1, 0, err, errlen);
	if (!rc && !hold(in, from, to, PROT_NONE, RANGE_BRK_RESERVE))
		return replay_input_fail(err, errlen, 2, "out of memory");
	return rc;
}

/* One recorded mapping at its address, writable until the pages are in; the views of a
 * shared file on its memory file (shared_files.h). */
static int map_one(struct replay_input *in, const struct pinball_map_entry *m, char *err,
		   size_t errlen)
{
	if (m->path && !strcmp(m->path, "[brk]"))
		return hold_brk(in, m, err, errlen);
	int fd = shared_file_flags(m->flags) && m->path && m->path[0] == '/'
		     ? shared_file_memfd(m->path)
		     : -1;
	int rc = map_fixed(m->start, m->end - m->start, PROT_READ | PROT_WRITE, 0, fd, m->offset,
			   err, errlen);
	if (!rc && !hold(in, m->start, m->end, m->prot, RANGE_RECORDED))
		rc = replay_input_fail(err, errlen, 2, "out of memory");
	if (!rc)
		jit_app_map_adopt(&(struct jit_app_mapping){m->start, m->end, m->prot, m->flags,
							    m->offset, m->path});
	return rc;
}

/* Every recorded mapping, once the whole map is read (and its entries found apart). */
static int map_recorded(const struct pinball_reader *r, struct replay_input *in, char *err,
			size_t errlen)
{
	struct pinball_cursor *c = pinball_cursor_open(r, "memmap", err);
	if (!c)
		return 2;
	struct pinball_map_entry m, *map = NULL;
	size_t n = 0, cap = 0;
	int got, rc = 0;
	while (!rc && (got = pinball_next_map(c, &m)) == 1) {
		struct pinball_map_entry *grown =
		    replay_input_grow(map, n, &cap, sizeof *grown, 64);
		if (grown)
			map = grown;
		if (!grown || (m.path && !(m.path = strdup(m.path))))
			rc = replay_input_fail(err, errlen, 2, "out of memory");
		else
			map[n++] = m;
	}
	if (!rc && got < 0)
		rc = replay_input_fail(err, errlen, 2, "%s", pinball_cursor_error(c));
	pinball_cursor_close(c);
	for (size_t i = 0; !rc && i < n; i++)
		rc = map_one(in, &map[i], err, errlen);
	for (size_t i = 0; i < n; i++)
		free((char *)map[i].path);
	free(map);
	return rc;
}

/* A page of a mapping the region made, kept for its mmap (replay_mmap_page). */
static bool keep_mmap_page(struct replay_input *in, const struct pinball_page *p, size_t *cap)
{
	struct replay_mmap_page *grown =
	    replay_input_grow(in->mmap_pages, in->nmmap_pages, cap, sizeof *grown, 256);
	if (!grown)
		return false;
	in->mmap_pages = grown;
	uint8_t *data = NULL;
	if (p->data && !(data = malloc(PAGE)))
		return false;
	if (data)
		memcpy(data, p->data, PAGE);
	in->mmap_pages[in->nmmap_pages++] =
	    (struct replay_mmap_page){p->mmap_tid, p->mmap_icount, p->addr, data, p->past_end};
	return true;
}

static int by_mmap(const void *a, const void *b)
{
	const struct replay_mmap_page *x = a, *y = b;
	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	if (x->icount != y->icount)
		return x->icount < y->icount ? -1 : 1;
	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

static int fill_pages(const struct pinball_reader *r, struct replay_input *in, char *err,
		      size_t errlen)
{
	struct pinball_cursor *c = pinball_cursor_open(r, "pages", err);
	if (!c)
		return 2;
	struct pinball_page p;
	int got, rc = 0;
	size_t cap = 0;
	while (!rc && (got = pinball_next_page(c, &p)) == 1) {
		if (p.at_mmap && !keep_mmap_page(in, &p, &cap))
			rc = replay_input_fail(err, errlen, 2, "out of memory");
		else if (!p.at_mmap && p.past_end && !inject_past_end_page(p.addr))
			rc = replay_input_fail(err, errlen, 2,
					       "cannot map the page 0x%lx past the end of its file",
					       p.addr);
		else if (!p.at_mmap && p.data) /* zero pages are zero already */
			memcpy((void *)p.addr, p.data, PAGE);
	}
	if (!rc && got < 0)
		rc = replay_input_fail(err, errlen, 2, "%s", pinball_cursor_error(c));
	pinball_cursor_close(c);
	qsort(in->mmap_pages, in->nmmap_pages, sizeof *in->mmap_pages, by_mmap);
	return rc;
}

int replay_memory_map(const struct pinball_reader *r, struct replay_input *in, char *err,
		      size_t errlen)
{
	int rc = map_recorded(r, in, err, errlen);
	if (!rc)
		rc = fill_pages(r, in, err, errlen);
	for (size_t i = 0; !rc && i < in->nranges; i++)
		if (in->ranges[i].kind == RANGE_RECORDED)
			mprotect((void *)in->ranges[i].start,
				 in->ranges[i].end - in->ranges[i].start, (int)in->ranges[i].prot);
	return rc;
}

/* The held range containing addr, or NULL. */
static const struct replay_range *held_at(const struct replay_input *in, uint64_t addr)
{
	for (size_t i = 0; i < in->nranges; i++)
		if (in->ranges[i].start <= addr && addr < in->ranges[i].end)
			return &in->ranges[i];
	return NULL;
}

/* The parts of [start, end) the replay does not hold yet; calls fn on each. */
static int each_gap(struct replay_input *in, uint64_t start, uint64_t end,
		    int (*fn)(struct replay_input *, uint64_t, uint64_t, char *, size_t), char *err,
		    size_t errlen)
{
	uint64_t at = start;
	while (at < end) {
		const struct replay_range *h = held_at(in, at);
		if (h) {
			at = h->end;
			continue;
		}
		uint64_t gap_end = end;
		for (size_t i = 0; i < in->nranges; i++)
			if (in->ranges[i].start > at && in->ranges[i].start < gap_end)
				gap_end = in->ranges[i].start;
		int rc = fn(in, at, gap_end, err, errlen);
		if (rc)
			return rc;
		at = gap_end;
	}
	return 0;
}

static int claim_gap(struct replay_input *in, uint64_t start, uint64_t end, char *err,
		     size_t errlen)
{
	int rc = map_fixed(start, end - start, PROT_NONE, MAP_NORESERVE, -1, 0, err, errlen);
	if (rc == 3)
		replay_input_fail(err, errlen, 3,
				  "the range 0x%lx-0x%lx that the region maps is in use by the "
				  "replayer",
				  start, end);
	if (!rc && !hold(in, start, end, PROT_NONE, RANGE_CLAIM))
		rc = replay_input_fail(err, errlen, 2, "out of memory");
	return rc;
}

static int claim_thread_future(struct replay_input *in, const struct replay_thread *t, char *err,
			       size_t errlen)
{
	for (size_t i = 0; i < t->nevents; i++) {
		const struct replay_event *e = &t->events[i];
		if (e->kind != PINBALL_EV_SYSCALL || e->result < 0 ||
		    (e->nr != SYS_mmap && e->nr != SYS_mremap))
			continue;
		uint64_t start = (uint64_t)e->result;
		uint64_t len = e->nr == SYS_mmap ? e->args[1] : e->args[2];
		if (!len || len > USER_END || start % PAGE || start > USER_END - len)
			return replay_input_fail(
			    err, errlen, 2,
			    "the pinball maps an impossible range (0x%lx, %lu bytes)", start, len);
		uint64_t end = start + ((len + PAGE - 1) & ~(uint64_t)(PAGE - 1));
		int rc = each_gap(in, start, end, claim_gap, err, errlen);
		if (rc)
			return rc;
	}
	return 0;
}

int replay_memory_claim_future(struct replay_input *in, char *err, size_t errlen)
{
	for (size_t k = 0; k < in->nthreads; k++) {
		int rc = claim_thread_future(in, &in->threads[k], err, errlen);
		if (rc)
			return rc;
	}
	return 0;
}

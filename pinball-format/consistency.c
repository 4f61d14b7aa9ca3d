#include "consistency.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The lowest address above x86-64 user space (47 bits). */
#define USER_END 0x800000000000ull

enum { MAX_TIDS = 1 << 20 };

struct tid_info {
	uint32_t tid;
	bool started, created, ended;
	uint64_t end_icount, last_event_icount, slice_sum;
	uint64_t slices;
};

struct range {
	uint64_t start, end;
};

struct consistency {
	const struct pinball_header *h;
	uint64_t page_size;
	struct range *maps, *pages;
	size_t nmaps, capmaps, npages, cappages;
	bool maps_sorted;
	struct tid_info *tids;
	size_t ntids, captids;
	char why[160];
};

struct consistency *consistency_new(const struct pinball_header *h)
{
	struct consistency *c = calloc(1, sizeof *c);
	if (c) {
		c->h = h;
		c->page_size = h->page_size ? h->page_size : 4096;
	}
	return c;
}

void consistency_free(struct consistency *c)
{
	if (!c)
		return;
	free(c->maps);
	free(c->pages);
	free(c->tids);
	free(c);
}

static bool push_range(struct range **v, size_t *n, size_t *cap, struct range r)
{
	if (*n == *cap) {
		size_t ncap = *cap ? *cap * 2 : 256;
		struct range *nv = realloc(*v, ncap * sizeof *nv);
		if (!nv)
			return false;
		*v = nv;
		*cap = ncap;
	}
	(*v)[(*n)++] = r;
	return true;
}

static int by_start(const void *a, const void *b)
{
	const struct range *x = a, *y = b;
	return x->start < y->start ? -1 : x->start > y->start;
}

/* The first pair of sorted ranges that overlap, or NULL. */
static const struct range *overlap(struct range *v, size_t n)
{
	if (n < 2)
		return NULL;
	qsort(v, n, sizeof *v, by_start);
	for (size_t i = 1; i < n; i++)
		if (v[i].start < v[i - 1].end)
			return &v[i];
	return NULL;
}

static const char *say(struct consistency *c, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static const char *say(struct consistency *c, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(c->why, sizeof c->why, fmt, ap);
	va_end(ap);
	return c->why;
}

static bool aligned(const struct consistency *c, uint64_t addr)
{
	return (addr & (c->page_size - 1)) == 0;
}

const char *consistency_map(struct consistency *c, const struct pinball_map_entry *m)
{
	if (m->path && !strcmp(m->path, "[brk]")) {
		/* The break: a pseudo-entry beside its mapping, from its start to the current
		 * break (any address). */
		if (!aligned(c, m->start) || m->end < m->start || m->end > USER_END)
			return say(c, "the program break 0x%lx-0x%lx is not in user space",
				   m->start, m->end);
		return NULL;
	}
	if (m->start >= m->end || m->end > USER_END || !aligned(c, m->start) || !aligned(c, m->end))
		return say(c, "memory map entry 0x%lx-0x%lx is not a page range of user space",
			   m->start, m->end);
	c->maps_sorted = false;
	return push_range(&c->maps, &c->nmaps, &c->capmaps, (struct range){m->start, m->end})
		   ? NULL
		   : "out of memory";
}

static struct tid_info *tid_info(struct consistency *c, uint32_t tid)
{
	for (size_t i = c->ntids; i-- > 0;)
		if (c->tids[i].tid == tid)
			return &c->tids[i];
	if (c->ntids == MAX_TIDS)
		return NULL;
	if (c->ntids == c->captids) {
		size_t ncap = c->captids ? c->captids * 2 : 16;
		struct tid_info *n = realloc(c->tids, ncap * sizeof *n);
		if (!n)
			return NULL;
		c->tids = n;
		c->captids = ncap;
	}
	c->tids[c->ntids] = (struct tid_info){.tid = tid};
	return &c->tids[c->ntids++];
}

/* Every bit of RFLAGS that user code can hold; bit 1 always reads as one. */
#define RFLAGS_DEFINED 0x3f7fd7ull

const char *pinball_xsave_check(const uint8_t *x, size_t len, uint64_t xcr0)
{
	enum { LEGACY = 512, HEADER = 64 };
	if (len < LEGACY + HEADER)
		return "an xsave image shorter than its legacy area and header";
	uint32_t mxcsr;
	uint64_t xstate_bv, xcomp_bv;
	memcpy(&mxcsr, x + 24, sizeof mxcsr);
	memcpy(&xstate_bv, x + LEGACY, sizeof xstate_bv);
	memcpy(&xcomp_bv, x + LEGACY + 8, sizeof xcomp_bv);
	if (mxcsr >> 16)
		return "an xsave image with reserved MXCSR bits set";
	if (xstate_bv & ~xcr0)
		return "an xsave image with state components the pinball's XCR0 lacks";
	if (xcomp_bv)
		return "an xsave image in compacted format";
	for (size_t i = LEGACY + 16; i < LEGACY + HEADER; i++)
		if (x[i])
			return "an xsave image with reserved header bytes set";
	return NULL;
}

const char *consistency_thread(struct consistency *c, const struct pinball_thread *t, bool end)
{
	struct tid_info *ti = tid_info(c, t->tid);
	if (!ti)
		return "too many threads";
	if (end ? ti->ended : ti->started)
		return say(c, "thread %u appears twice", t->tid);
	if (end) {
		ti->ended = true;
		ti->end_icount = t->icount;
	} else {
		ti->started = true;
		if (t->icount)
			return say(c, "thread %u starts the region at icount %lu, not 0", t->tid,
				   t->icount);
	}
	if (t->regs.fs_base >= USER_END || t->regs.gs_base >= USER_END)
		return say(c, "thread %u has an fs or gs base outside user space", t->tid);
	if ((t->regs.rflags & ~RFLAGS_DEFINED) || !(t->regs.rflags & 2))
		return say(c, "thread %u has rflags 0x%lx with undefined bits", t->tid,
			   t->regs.rflags);
	if (t->regs.xsave_len != c->h->xsave_size)
		return say(c, "thread %u has an xsave image of %zu bytes, not the header's %u",
			   t->tid, t->regs.xsave_len, c->h->xsave_size);
	return pinball_xsave_check(t->regs.xsave, t->regs.xsave_len, c->h->xcr0);
}

/* Whether the map's entries cover [start, end): one, or several that follow each other
 * (a run of all-zero pages goes on across entries with the same protection). */
static bool in_map(struct consistency *c, uint64_t start, uint64_t end)
{
	if (!c->maps_sorted && c->nmaps) {
		qsort(c->maps, c->nmaps, sizeof *c->maps, by_start);
		c->maps_sorted = true;
	}
	size_t lo = 0, hi = c->nmaps;
	while (lo < hi) { /* the last entry starting at or below start */
		size_t mid = (lo + hi) / 2;
		if (c->maps[mid].start <= start)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0 || c->maps[lo - 1].end <= start)
		return false;
	uint64_t covered = c->maps[lo - 1].end;
	for (size_t i = lo; covered < end && i < c->nmaps && c->maps[i].start == covered; i++)
		covered = c->maps[i].end;
	return end <= covered;
}

const char *consistency_page(struct consistency *c, const struct pinball_page *p)
{
	uint64_t len = p->npages * c->page_size;
	if (!aligned(c, p->addr) || !p->npages || p->npages > USER_END / c->page_size ||
	    p->addr > USER_END - len)
		return say(c, "page record at 0x%lx (%lu pages) is not a page range of user space",
			   p->addr, p->npages);
	if (p->at_mmap) /* in a mapping made later, over any address: the replay checks it */
		return NULL;
	if (!in_map(c, p->addr, p->addr + len))
		return say(c, "page 0x%lx is outside the memory map", p->addr);
	return push_range(&c->pages, &c->npages, &c->cappages,
			  (struct range){p->addr, p->addr + len})
		   ? NULL
		   : "out of memory";
}

static const char *syscall_event(struct consistency *c, const struct pinball_event *e)
{
	for (size_t i = 0; i < e->syscall.nwrites; i++) {
		const struct pinball_mem_write *w = &e->syscall.writes[i];
		if (w->addr >= USER_END || w->len > USER_END - w->addr)
			return say(c, "a syscall writes %zu bytes at 0x%lx, outside user space",
				   w->len, w->addr);
	}
	return NULL;
}

const char *consistency_event(struct consistency *c, uint32_t tid, const struct pinball_event *e)
{
	struct tid_info *ti = tid_info(c, tid);
	if (!ti)
		return "too many threads";
	if (e->icount < ti->last_event_icount)
		return say(c, "events of thread %u go back to icount %lu", tid, e->icount);
	ti->last_event_icount = e->icount;
	switch (e->kind) {
	case PINBALL_EV_SYSCALL:
		return syscall_event(c, e);
	case PINBALL_EV_INSN:
		if (e->insn.kind < PINBALL_INSN_RDTSC || e->insn.kind > PINBALL_INSN_XGETBV ||
		    e->insn.dest_reg >= PINBALL_GPR_COUNT)
			return say(c, "an instruction event of kind %u, register %u",
				   (unsigned)e->insn.kind, e->insn.dest_reg);
		return NULL;
	case PINBALL_EV_SIGNAL:
		if (e->signal.signo < 1 || e->signal.signo > 64 || e->signal.siginfo_len < 128)
			return say(c, "a signal event of signal %d with %zu bytes of siginfo",
				   e->signal.signo, e->signal.siginfo_len);
		return NULL;
	case PINBALL_EV_THREAD_CREATE: {
		struct tid_info *child = tid_info(c, e->thread_create.child_tid);
		if (!child)
			return "too many threads";
		child->created = true;
		return NULL;
	}
	case PINBALL_EV_THREAD_EXIT:
		return NULL;
	}
	return "an event of an unknown kind";
}

const char *consistency_slice(struct consistency *c, const struct pinball_slice *s)
{
	struct tid_info *ti = tid_info(c, s->tid);
	if (!ti)
		return "too many threads";
	ti->slice_sum += s->instructions;
	ti->slices++;
	return NULL;
}

const char *consistency_map_end(struct consistency *c)
{
	const struct range *r = overlap(c->maps, c->nmaps);
	c->maps_sorted = true;
	return r ? say(c, "memory map entries overlap at 0x%lx-0x%lx", r->start, r->end) : NULL;
}

const char *consistency_finish(struct consistency *c)
{
	const char *bad = consistency_map_end(c);
	if (bad)
		return bad;
	const struct range *r;
	if ((r = overlap(c->pages, c->npages)))
		return say(c, "page 0x%lx is recorded twice", r->start);
	for (size_t i = 0; i < c->ntids; i++) {
		const struct tid_info *t = &c->tids[i];
		if (!t->started && !t->created)
			return say(c,
				   "thread %u has records but neither a start state nor a "
				   "creation",
				   t->tid);
		if (t->started && !t->ended)
			return say(c, "thread %u has no end state", t->tid);
		if (t->ended && t->last_event_icount > t->end_icount)
			return say(c, "thread %u has an event after its end (icount %lu)", t->tid,
				   t->last_event_icount);
		if (t->slices && t->slice_sum != t->end_icount)
			return say(
			    c, "the schedule gives thread %u %lu instructions, its end state %lu",
			    t->tid, t->slice_sum, t->end_icount);
	}
	return NULL;
}

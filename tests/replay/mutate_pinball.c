/* mutate_pinball IN OUT SEED: copies pinball IN to OUT through the format library (so every
 * checksum and count stays valid) with one to three mutations a hostile or broken pinball
 * could carry, chosen by SEED: registers and flags, map entries, pages, syscall results,
 * arguments and writes, signals, instruction results, the signal state, the schedule;
 * changed, dropped or duplicated. Prints what it did. The replay fuzz test runs the
 * replayer on each mutant: a verdict or a clear error, never a crash or a hang.
 *
 * mutate_pinball IN OUT NAME: one named mutation, for tests of a given defence: rip0,
 * flag-ac, flag-df, flag-tf, write-outside, page-outside, page-twice, map-overlap,
 * end-icount, slice, signo, dest-reg, xsave-size; and NAME=ADDR, where memory that is not
 * the app's is (the replayer's own): write-at=ADDR (the kernel's writes of every syscall
 * that has some go there), mmap-at=ADDR, mremap-at=ADDR (every successful call's result
 * is ADDR), munmap-at=ADDR (every successful munmap returns ADDR). */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>

#include "pinball.h"

static uint64_t rng;

static uint64_t next(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static uint64_t below(uint64_t n)
{
	return n ? next() % n : 0;
}

/* A value a field might be set to: near the old one, a boundary, or anything. */
static uint64_t nasty(uint64_t old)
{
	switch (below(8)) {
	case 0:
		return 0;
	case 1:
		return old ^ (1ull << below(64));
	case 2:
		return old + 4096 * (below(32) - 16);
	case 3:
		return ~0ull - below(4096);
	case 4:
		return 0x555555554000ull + below(1 << 24); /* where a PIE replayer may live */
	case 5:
		return 0x7fff00000000ull + 4096 * below(1 << 20);
	case 6:
		return old + 1;
	default:
		return next();
	}
}

enum part { P_THREADS, P_END, P_MAP, P_PAGES, P_EVENTS, P_SLICES, P_HEADER, P_COUNT };
static const char *const part_names[] = {"threads", "end",	"map",	 "pages",
					 "events",  "schedule", "header"};

/* What to do: a part, a record in it, and how. */
struct mutation {
	enum part part;
	uint64_t index;
	enum { CHANGE, DROP, DUPLICATE } how;
};

static struct mutation plan[4096];
static int nplan;

static const struct mutation *mutation_at(enum part part, uint64_t index)
{
	for (int i = 0; i < nplan; i++)
		if (plan[i].part == part && plan[i].index == index)
			return &plan[i];
	return NULL;
}

static void say(const struct mutation *m, const char *what)
{
	static const char *const hows[] = {"changed", "dropped", "duplicated"};
	printf("%s #%" PRIu64 " %s%s%s\n", part_names[m->part], m->index, hows[m->how],
	       what ? ": " : "", what ? what : "");
}

static const char *named;   /* the named mutation, or NULL */
static uint64_t named_addr; /* its address (write-outside: 0x10000) */

static bool is(const char *name)
{
	return named && !strcmp(named, name);
}

static uint8_t scratch[64][65536];
static int nscratch;

/* A writable copy of len bytes (the reader's records are read-only). */
static uint8_t *copy_of(const void *data, size_t len)
{
	if (len > sizeof scratch[0] || nscratch == 64)
		return NULL;
	uint8_t *c = scratch[nscratch++];
	memcpy(c, data, len);
	return c;
}

static void flip_byte(const uint8_t **data, size_t len)
{
	uint8_t *c = len ? copy_of(*data, len) : NULL;
	if (c) {
		c[below(len)] ^= (uint8_t)(1 + below(255));
		*data = c;
	}
}

static void change_thread(struct pinball_thread *t)
{
	if (named) {
		t->regs.rip = is("rip0") ? 0 : t->regs.rip;
		t->regs.rflags |= is("flag-ac")	  ? 0x40000
				  : is("flag-df") ? 0x400
				  : is("flag-tf") ? 0x100
						  : 0;
		t->icount += is("end-icount");
		return;
	}
	switch (below(7)) {
	case 0:
		t->regs.rip = nasty(t->regs.rip);
		break;
	case 1:
		t->regs.gpr[below(16)] = nasty(t->regs.gpr[4]);
		break;
	case 2: {
		static const uint64_t flags[] = {0x100, 0x40000, 0x400, 0x4000, 0x20000, 0x3000};
		t->regs.rflags |= below(2) ? flags[below(6)] : 1ull << below(64);
		break;
	}
	case 3:
		t->regs.fs_base = nasty(t->regs.fs_base);
		break;
	case 4:
		flip_byte(&t->regs.xsave, t->regs.xsave_len);
		break;
	case 5:
		t->icount = nasty(t->icount);
		break;
	default:
		t->signal_mask = next();
	}
}

static void change_map(struct pinball_map_entry *m)
{
	switch (below(4)) {
	case 0:
		m->start = nasty(m->start);
		break;
	case 1:
		m->end = nasty(m->end);
		break;
	case 2:
		m->prot = (uint32_t)below(8);
		break;
	default:
		m->path = below(2) ? "[brk]" : NULL;
	}
}

static void change_page(struct pinball_page *p)
{
	if (named) { /* page-outside */
		p->addr = 0x10000;
		return;
	}
	switch (below(3)) {
	case 0:
		p->addr = nasty(p->addr);
		break;
	case 1:
		p->prot = (uint32_t)below(8);
		break;
	default:
		flip_byte(&p->data, p->data ? 4096 : 0);
	}
}

/* Whether e is a successful call of syscall nr (a result that is no error). */
static bool succeeded(const struct pinball_event *e, uint64_t nr)
{
	return e->kind == PINBALL_EV_SYSCALL && e->syscall.nr == nr &&
	       (uint64_t)e->syscall.result < -4096ull;
}

static void change_event(struct pinball_event *e)
{
	if ((is("write-outside") || is("write-at")) && e->kind == PINBALL_EV_SYSCALL &&
	    e->syscall.nwrites) {
		struct pinball_mem_write *w =
		    (struct pinball_mem_write *)copy_of(e->syscall.writes, sizeof *w);
		w->addr = named_addr;
		e->syscall.writes = w;
		e->syscall.nwrites = 1;
		return;
	}
	if ((is("mmap-at") && succeeded(e, SYS_mmap)) ||
	    (is("mremap-at") && succeeded(e, SYS_mremap)) ||
	    (is("munmap-at") && succeeded(e, SYS_munmap))) {
		e->syscall.result = (int64_t)named_addr;
		return;
	}
	if (is("signo") && e->kind == PINBALL_EV_SIGNAL) {
		e->signal.signo = 99;
		return;
	}
	if (is("dest-reg") && e->kind == PINBALL_EV_INSN) {
		e->insn.dest_reg = 17;
		return;
	}
	if (named)
		return;
	switch (e->kind) {
	case PINBALL_EV_SYSCALL:
		switch (below(5)) {
		case 0:
			e->syscall.result = (int64_t)nasty((uint64_t)e->syscall.result);
			break;
		case 1:
			e->syscall.nr = below(2) ? below(460) : nasty(e->syscall.nr);
			break;
		case 2:
			e->syscall.args[below(6)] = nasty(e->syscall.args[1]);
			break;
		case 3:
			if (e->syscall.nwrites) {
				struct pinball_mem_write *w = (struct pinball_mem_write *)copy_of(
				    e->syscall.writes, e->syscall.nwrites * sizeof *w);
				if (w) {
					size_t k = below(e->syscall.nwrites);
					w[k].addr = nasty(w[k].addr);
					e->syscall.writes = w;
				}
			}
			break;
		default:
			e->syscall.echo = (uint32_t)below(3);
		}
		break;
	case PINBALL_EV_SIGNAL:
		if (below(2))
			e->signal.signo = (int32_t)below(70);
		else
			flip_byte(&e->signal.siginfo, e->signal.siginfo_len);
		break;
	case PINBALL_EV_INSN:
		e->insn.kind = (enum pinball_insn_kind)(1 + below(7));
		e->insn.dest_reg = (uint32_t)below(20);
		e->insn.value = next();
		break;
	default:
		break;
	}
	if (!below(4))
		e->icount = nasty(e->icount);
}

static void change_slice(struct pinball_slice *s)
{
	if (named) {
		s->instructions++;
		return;
	}
	if (below(2))
		s->instructions = nasty(s->instructions);
	else
		s->tid = (uint32_t)nasty(s->tid);
}

static void change_header(struct pinball_header *h)
{
	static struct pinball_sigaction acts[64];
	if (named) {
		h->xsave_size = is("xsave-size") ? 100 : h->xsave_size;
		return;
	}
	switch (below(4)) {
	case 0:
		h->xcr0 = nasty(h->xcr0);
		break;
	case 1:
		h->xsave_size = (uint32_t)nasty(h->xsave_size);
		break;
	case 2: {
		size_t n = h->nsigactions < 63 ? h->nsigactions : 63;
		memcpy(acts, h->sigactions, n * sizeof *acts);
		acts[n] = (struct pinball_sigaction){(int32_t)below(70), nasty(0x401000), next(),
						     next(), next()};
		h->sigactions = acts;
		h->nsigactions = n + 1;
		break;
	}
	default:
		h->sigstack =
		    (struct pinball_sigstack){nasty(0x7fff0000), (int32_t)below(4), nasty(8192)};
	}
}

/* Adds a record as the plan says: changed, dropped or twice. */
#define EMIT(part, index, rec, change, add)                                                        \
	do {                                                                                       \
		const struct mutation *m_ = mutation_at(part, index);                              \
		if (m_ && m_->how == CHANGE)                                                       \
			change(&rec);                                                              \
		if (m_)                                                                            \
			say(m_, NULL);                                                             \
		if (!(m_ && m_->how == DROP) && (add))                                             \
			return fail(pinball_writer_error(w));                                      \
		if (m_ && m_->how == DUPLICATE && (add))                                           \
			return fail(pinball_writer_error(w));                                      \
	} while (0)

static int fail(const char *what)
{
	fprintf(stderr, "mutate_pinball: %s\n", what);
	return 1;
}

static uint64_t counts[P_COUNT];
static uint8_t zero_page[4096];

static int add_page(struct pinball_writer *w, const struct pinball_page *p)
{
	if (p->at_mmap)
		return pinball_writer_add_mmap_page(w, p->addr, p->prot,
						    p->data ? p->data : zero_page, p->mmap_tid,
						    p->mmap_icount);
	for (uint64_t i = 0; i < p->npages; i++)
		if (pinball_writer_add_page(w, p->addr + i * 4096, p->prot,
					    p->data ? p->data : zero_page))
			return -1;
	return 0;
}

/* Every record of a part through the plan (or, with w NULL, only counted). */
static int copy_part(struct pinball_reader *r, struct pinball_writer *w, const char *name,
		     enum part part, uint32_t tid)
{
	char err[PINBALL_ERR_MAX];
	struct pinball_cursor *c = pinball_cursor_open(r, name, err);
	if (!c)
		return part == P_SLICES ? 0 : fail(err);
	union {
		struct pinball_thread t;
		struct pinball_map_entry m;
		struct pinball_page p;
		struct pinball_event e;
		struct pinball_slice s;
	} u;
	int got = 1;
	while (got == 1) {
		uint64_t i = counts[part];
		switch (part) {
		case P_THREADS:
		case P_END:
			if ((got = pinball_next_thread(c, &u.t)) == 1 && w)
				EMIT(part, i, u.t, change_thread,
				     part == P_END ? pinball_writer_add_end(w, &u.t)
						   : pinball_writer_add_thread(w, &u.t));
			break;
		case P_MAP:
			if ((got = pinball_next_map(c, &u.m)) == 1 && w)
				EMIT(part, i, u.m, change_map, pinball_writer_add_map(w, &u.m));
			break;
		case P_PAGES:
			if ((got = pinball_next_page(c, &u.p)) == 1 && w)
				EMIT(part, i, u.p, change_page, add_page(w, &u.p));
			break;
		case P_EVENTS:
			if ((got = pinball_next_event(c, &u.e)) == 1 && w)
				EMIT(part, i, u.e, change_event,
				     pinball_writer_add_event(w, tid, &u.e));
			break;
		default: /* slices */
			if ((got = pinball_next_slice(c, &u.s)) == 1 && w)
				EMIT(part, i, u.s, change_slice, pinball_writer_add_slice(w, &u.s));
			break;
		}
		if (got == 1)
			counts[part]++;
	}
	if (got < 0)
		return fail(pinball_cursor_error(c));
	pinball_cursor_close(c);
	return 0;
}

static int copy_all(struct pinball_reader *r, struct pinball_writer *w)
{
	memset(counts, 0, sizeof counts);
	if (copy_part(r, w, "threads", P_THREADS, 0) || copy_part(r, w, "memmap", P_MAP, 0) ||
	    copy_part(r, w, "pages", P_PAGES, 0) || copy_part(r, w, "schedule", P_SLICES, 0) ||
	    copy_part(r, w, "end", P_END, 0))
		return 1;
	uint32_t tids[64];
	size_t ntids = pinball_reader_event_tids(r, tids, 64);
	for (size_t t = 0; t < ntids; t++) {
		char name[32];
		snprintf(name, sizeof name, "events.%u", tids[t]);
		if (copy_part(r, w, name, P_EVENTS, tids[t]))
			return 1;
	}
	return 0;
}

/* The first record of the part a named mutation changes (events: the first of a kind the
 * mutation finds; the others pass unchanged). */
static bool make_named_plan(void)
{
	static const struct {
		const char *name;
		enum part part;
		enum { ALL, SECOND } which;
		int how;
	} table[] = {
	    {"rip0", P_THREADS, ALL, CHANGE},	    {"flag-ac", P_THREADS, ALL, CHANGE},
	    {"flag-df", P_THREADS, ALL, CHANGE},    {"flag-tf", P_THREADS, ALL, CHANGE},
	    {"end-icount", P_END, ALL, CHANGE},	    {"map-overlap", P_MAP, SECOND, DUPLICATE},
	    {"page-outside", P_PAGES, ALL, CHANGE}, {"page-twice", P_PAGES, ALL, DUPLICATE},
	    {"slice", P_SLICES, ALL, CHANGE},	    {"write-outside", P_EVENTS, ALL, CHANGE},
	    {"signo", P_EVENTS, ALL, CHANGE},	    {"dest-reg", P_EVENTS, ALL, CHANGE},
	    {"xsave-size", P_HEADER, ALL, CHANGE},  {"write-at", P_EVENTS, ALL, CHANGE},
	    {"mmap-at", P_EVENTS, ALL, CHANGE},	    {"mremap-at", P_EVENTS, ALL, CHANGE},
	    {"munmap-at", P_EVENTS, ALL, CHANGE},
	};
	for (size_t i = 0; i < sizeof table / sizeof table[0]; i++)
		if (is(table[i].name)) {
			uint64_t n = table[i].part == P_HEADER ? 1 : counts[table[i].part];
			nplan = 0;
			for (uint64_t k = table[i].which == SECOND; k < n && nplan < 4096; k++)
				if (table[i].part == P_EVENTS || k < 1 + (table[i].which == SECOND))
					plan[nplan++] =
					    (struct mutation){table[i].part, k, table[i].how};
			return true;
		}
	return false;
}

static void make_plan(void)
{
	nplan = 1 + (int)below(3);
	for (int i = 0; i < nplan; i++) {
		enum part part;
		do
			part = (enum part)below(P_COUNT);
		while (part != P_HEADER && !counts[part]);
		plan[i].part = part;
		plan[i].index = below(counts[part]);
		uint64_t how = below(10);
		plan[i].how = part == P_HEADER || how < 6 ? CHANGE : how < 8 ? DROP : DUPLICATE;
	}
}

int main(int argc, char **argv)
{
	if (argc != 4)
		return fail("usage: mutate_pinball IN OUT SEED");
	char *end;
	rng = strtoull(argv[3], &end, 0) * 0x9e3779b97f4a7c15ull | 1;
	if (*end) {
		named = argv[3];
		named_addr = 0x10000;
		char *addr = strchr(argv[3], '=');
		if (addr) {
			*addr = '\0';
			named_addr = strtoull(addr + 1, &end, 0);
			if (*end || end == addr + 1)
				return fail("NAME=ADDR needs an address");
		}
	}
	char err[PINBALL_ERR_MAX];
	struct pinball_reader *r = pinball_reader_open(argv[1], err);
	if (!r)
		return fail(err);
	if (copy_all(r, NULL)) /* count the records */
		return 1;
	if (!named)
		make_plan();
	else if (!make_named_plan())
		return fail("unknown mutation name");
	struct pinball_header h = *pinball_reader_header(r);
	const struct mutation *hm = mutation_at(P_HEADER, 0);
	if (hm) {
		change_header(&h);
		say(hm, NULL);
	}
	struct pinball_writer *w = pinball_writer_create(argv[2], &h, err);
	if (!w)
		return fail(err);
	if (copy_all(r, w))
		return 1;
	if (pinball_writer_finish(w, pinball_reader_region_stop(r)))
		return fail(pinball_writer_error(w));
	pinball_writer_free(w);
	pinball_reader_close(r);
	return 0;
}

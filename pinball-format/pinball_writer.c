/* The pinball writer: one part_writer per part, zero-page runs, the summary, and the
 * rename of every part into place at the end (P.meta last). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <unistd.h>

#include "convert.h"
#include "part_format.h"
#include "part_writer.h"
#include "pinball.h"

struct events_part {
	uint32_t tid;
	struct part_writer pw;
};

struct pinball_writer {
	char *base;
	uint8_t id[PINBALL_ID_SIZE];
	uint32_t page_size;
	uint8_t *header_pb; /* the packed Header, written into P.meta at the end */
	size_t header_len;
	struct chunk_scratch scratch;
	struct arena arena; /* temporaries of one conversion */
	struct part_writer threads, memmap, pages, schedule, end;
	struct events_part **events; /* sorted by tid */
	size_t nevents, events_cap;
	bool zero_run;
	uint64_t zero_addr, zero_count;
	uint32_t zero_prot;
	struct pinball_summary sum;
	uint64_t ignored_events;
	uint64_t meta_bytes; /* once finished */
	bool failed, finished;
	bool hurried;	/* pinball_writer_hurry */
	bool name_used; /* files under the name when the writer began (pinball_writer_create) */
	char err[PINBALL_ERR_MAX];
};

static int fail(struct pinball_writer *w, const char *what)
{
	snprintf(w->err, sizeof w->err, "%s: %s", w->base, what);
	w->failed = true;
	return -1;
}

/* Every add function starts here: a writer that failed once refuses everything after. */
static int usable(struct pinball_writer *w)
{
	arena_reset(&w->arena);
	return w->failed || w->finished ? -1 : 0;
}

/* Appends a message to a part; the message came from the arena, which this resets. */
static int add(struct pinball_writer *w, struct part_writer *pw, const void *msg)
{
	if (!msg)
		return fail(w, "out of memory");
	int r = part_writer_add(pw, msg);
	if (r < 0)
		w->failed = true;
	return r;
}

/* A page record. The first pages are packed at the hurried level: a short run would
 * otherwise wait at its end for the slow level's first chunks. */
static int add_page(struct pinball_writer *w, const void *msg)
{
	int r = add(w, &w->pages, msg);
	if (!w->hurried && w->pages.raw_bytes >= PAGES_EARLY_BYTES)
		w->pages.how.level = PAGES_ZSTD_LEVEL;
	return r;
}

struct pinball_writer *pinball_writer_create(const char *basename, const struct pinball_header *hdr,
					     char err[PINBALL_ERR_MAX])
{
	struct pinball_writer *w = calloc(1, sizeof *w);
	if (!w || !(w->base = strdup(basename))) {
		snprintf(err, PINBALL_ERR_MAX, "%s: out of memory", basename);
		free(w);
		return NULL;
	}
	arena_init(&w->arena);
	w->page_size = hdr->page_size ? hdr->page_size : 4096;
	/* A name never used (the usual one: a run names its processes' pinballs after their
	 * pids) has nothing to clean, now or at the end: the directory is read once, not
	 * four times (a directory of a run's thousand pinballs takes about 1 ms each). */
	char ignored[PINBALL_ERR_MAX]; /* a directory that cannot be read fails just below */
	struct pinball_leftovers l;
	w->name_used = pinball_leftovers(basename, &l, ignored) < 0 || l.has_meta || l.parts ||
		       l.tmp_live || l.tmp_dead;
	if (w->name_used)
		pinball_clean(basename, NULL, ignored);
	if (getrandom(w->id, sizeof w->id, 0) != sizeof w->id) {
		snprintf(err, PINBALL_ERR_MAX, "%s: getrandom failed: %s", basename,
			 strerror(errno));
		goto fail;
	}
	Pinball__Header *ph = header_to_pb(hdr, &w->arena);
	if (!ph || !(w->header_pb = malloc(protobuf_c_message_get_packed_size(&ph->base)))) {
		snprintf(err, PINBALL_ERR_MAX, "%s: out of memory", basename);
		goto fail;
	}
	w->header_len = protobuf_c_message_pack(&ph->base, w->header_pb);
	arena_reset(&w->arena);
	/* Pages are code and data, written once, which zstd's slower levels pack about a
	 * fifth smaller than LZ4HC (a hello-world's libc pages, python's heap); the rest
	 * (mostly what syscalls read) is written while the app runs: zstd's fastest level,
	 * about a quarter smaller than LZ4's fast mode on text, at a similar speed. The
	 * writer thread bears both, beside the app; what is left when the app waits for the
	 * pinball is packed faster (pinball_writer_hurry). */
	const struct part_compression pages_how = {PART_CODEC_ZSTD, PAGES_ZSTD_LEVEL_HURRIED, NULL};
	struct {
		struct part_writer *pw;
		const char *name;
		size_t target;
		struct part_compression how;
	} fixed[] = {{&w->threads, "threads", CHUNK_TARGET_SMALL, PART_ZSTD_FAST},
		     {&w->memmap, "memmap", CHUNK_TARGET_SMALL, PART_ZSTD_FAST},
		     {&w->pages, "pages", CHUNK_TARGET_PAGES, pages_how},
		     {&w->schedule, "schedule", CHUNK_TARGET_SMALL, PART_ZSTD_FAST},
		     {&w->end, "end", CHUNK_TARGET_SMALL, PART_ZSTD_FAST}};
	for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; i++)
		fixed[i].pw->fd = -1;
	for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; i++)
		if (part_writer_open(fixed[i].pw, basename, fixed[i].name, w->id, fixed[i].target,
				     &w->scratch, fixed[i].how, w->err) < 0) {
			snprintf(err, PINBALL_ERR_MAX, "%s", w->err);
			goto fail;
		}
	return w;
fail:
	pinball_writer_free(w);
	return NULL;
}

int pinball_writer_add_thread(struct pinball_writer *w, const struct pinball_thread *t)
{
	if (usable(w) < 0)
		return -1;
	w->sum.threads++;
	return add(w, &w->threads, thread_to_pb(t, &w->arena));
}

int pinball_writer_add_end(struct pinball_writer *w, const struct pinball_thread *t)
{
	if (usable(w) < 0)
		return -1;
	w->sum.instructions += t->icount;
	return add(w, &w->end, thread_to_pb(t, &w->arena));
}

int pinball_writer_add_map(struct pinball_writer *w, const struct pinball_map_entry *m)
{
	if (usable(w) < 0)
		return -1;
	w->sum.map_entries++;
	return add(w, &w->memmap, map_to_pb(m, &w->arena));
}

int pinball_writer_add_slice(struct pinball_writer *w, const struct pinball_slice *s)
{
	if (usable(w) < 0)
		return -1;
	Pinball__Slice ps = PINBALL__SLICE__INIT;
	ps.tid = s->tid;
	ps.instructions = s->instructions;
	w->sum.slices++;
	return add(w, &w->schedule, &ps);
}

static int flush_zero_run(struct pinball_writer *w)
{
	if (!w->zero_run)
		return 0;
	Pinball__Page pp = PINBALL__PAGE__INIT;
	pp.addr = w->zero_addr;
	pp.prot = w->zero_prot;
	pp.zero_pages = w->zero_count;
	w->zero_run = false;
	return add_page(w, &pp);
}

static bool all_zero(const void *data, size_t len)
{
	const uint8_t *p = data;
	uint64_t acc = 0;
	for (size_t i = 0; i < len; i += 64) {
		uint64_t v[8];
		memcpy(v, p + i, sizeof v);
		acc |= v[0] | v[1] | v[2] | v[3] | v[4] | v[5] | v[6] | v[7];
		if (acc)
			return false;
	}
	return true;
}

int pinball_writer_add_zero_pages(struct pinball_writer *w, uint64_t addr, uint32_t prot,
				  uint64_t count)
{
	if (usable(w) < 0)
		return -1;
	w->sum.zero_pages += count;
	if (w->zero_run && prot == w->zero_prot &&
	    addr == w->zero_addr + w->zero_count * w->page_size) {
		w->zero_count += count;
		return 0;
	}
	if (flush_zero_run(w) < 0)
		return -1;
	w->zero_run = true;
	w->zero_addr = addr;
	w->zero_count = count;
	w->zero_prot = prot;
	return 0;
}

int pinball_writer_add_page(struct pinball_writer *w, uint64_t addr, uint32_t prot,
			    const void *data)
{
	if (all_zero(data, w->page_size))
		return pinball_writer_add_zero_pages(w, addr, prot, 1);
	if (usable(w) < 0)
		return -1;
	if (flush_zero_run(w) < 0)
		return -1;
	Pinball__Page pp = PINBALL__PAGE__INIT;
	pp.addr = addr;
	pp.prot = prot;
	pp.data.data = (uint8_t *)data;
	pp.data.len = w->page_size;
	w->sum.data_pages++;
	return add_page(w, &pp);
}

int pinball_writer_add_mmap_page(struct pinball_writer *w, uint64_t addr, uint32_t prot,
				 const void *data, uint32_t tid, uint64_t icount)
{
	if (usable(w) < 0 || flush_zero_run(w) < 0)
		return -1;
	Pinball__Page pp = PINBALL__PAGE__INIT;
	pp.addr = addr;
	pp.prot = prot;
	if (all_zero(data, w->page_size)) {
		pp.zero_pages = 1;
		w->sum.zero_pages++;
	} else {
		pp.data.data = (uint8_t *)data;
		pp.data.len = w->page_size;
		w->sum.data_pages++;
	}
	pp.at_mmap = true;
	pp.mmap_tid = tid;
	pp.mmap_icount = icount;
	return add_page(w, &pp);
}

int pinball_writer_add_past_end_page(struct pinball_writer *w, const struct pinball_page *p)
{
	if (usable(w) < 0 || flush_zero_run(w) < 0)
		return -1;
	Pinball__Page pp = PINBALL__PAGE__INIT;
	pp.addr = p->addr;
	pp.prot = p->prot;
	pp.zero_pages = 1;
	pp.past_end = true;
	pp.at_mmap = p->at_mmap;
	pp.mmap_tid = p->mmap_tid;
	pp.mmap_icount = p->mmap_icount;
	w->sum.zero_pages++;
	return add_page(w, &pp);
}

/* The events part of tid, created on first use. */
static struct part_writer *events_part(struct pinball_writer *w, uint32_t tid)
{
	size_t lo = 0, hi = w->nevents;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (w->events[mid]->tid == tid)
			return &w->events[mid]->pw;
		if (w->events[mid]->tid < tid)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (w->nevents == w->events_cap) {
		size_t cap = w->events_cap ? 2 * w->events_cap : 16;
		struct events_part **grown = realloc(w->events, cap * sizeof *grown);
		if (!grown)
			return NULL;
		w->events = grown;
		w->events_cap = cap;
	}
	struct events_part *ep = calloc(1, sizeof *ep);
	if (!ep)
		return NULL;
	char name[PART_NAME_SIZE];
	snprintf(name, sizeof name, "events.%u", tid);
	ep->tid = tid;
	if (part_writer_open(&ep->pw, w->base, name, w->id, CHUNK_TARGET_SMALL, &w->scratch,
			     PART_ZSTD_FAST, w->err) < 0) {
		part_writer_discard(&ep->pw);
		free(ep);
		w->failed = true;
		return NULL;
	}
	memmove(&w->events[lo + 1], &w->events[lo], (w->nevents - lo) * sizeof *w->events);
	w->events[lo] = ep;
	w->nevents++;
	return &ep->pw;
}

int pinball_writer_add_event(struct pinball_writer *w, uint32_t tid, const struct pinball_event *e)
{
	if (usable(w) < 0)
		return -1;
	struct part_writer *pw = events_part(w, tid);
	if (!pw)
		return w->failed ? -1 : fail(w, "out of memory");
	switch (e->kind) {
	case PINBALL_EV_SYSCALL:
		w->sum.syscalls++;
		break;
	case PINBALL_EV_INSN:
		w->sum.nondet_insns++;
		break;
	case PINBALL_EV_SIGNAL:
		w->sum.signals++;
		break;
	case PINBALL_EV_THREAD_CREATE:
	case PINBALL_EV_THREAD_EXIT:
		w->sum.thread_events++;
		break;
	default:
		return fail(w, "event of an unknown kind");
	}
	return add(w, pw, event_to_pb(e, &w->arena));
}

/* The parts other than P.meta, in the order P.meta lists them. */
static size_t all_parts(struct pinball_writer *w, struct part_writer **out)
{
	size_t n = 0;
	out[n++] = &w->threads;
	out[n++] = &w->memmap;
	out[n++] = &w->pages;
	for (size_t i = 0; i < w->nevents; i++)
		out[n++] = &w->events[i]->pw;
	out[n++] = &w->schedule;
	out[n++] = &w->end;
	return n;
}

/* Writes P.meta.tmp-<id> with the Meta record describing the closed parts. */
static int write_meta(struct pinball_writer *w, struct part_writer *meta,
		      struct part_writer **parts, size_t n, const struct pinball_cause *stop)
{
	Pinball__Meta m = PINBALL__META__INIT;
	Pinball__PartInfo **infos = arena_alloc(&w->arena, n * sizeof *infos);
	m.header = pinball__header__unpack(NULL, w->header_len, w->header_pb);
	static const struct pinball_cause no_cause;
	m.region_stop = cause_to_pb(stop ? stop : &no_cause, &w->arena);
	m.summary = summary_to_pb(&w->sum, &w->arena);
	m.ignored_events = w->ignored_events;
	int r = -1;
	if (!infos || !m.header || !m.region_stop || !m.summary) {
		fail(w, "out of memory");
		goto out;
	}
	for (size_t i = 0; i < n; i++) {
		Pinball__PartInfo *pi = arena_alloc(&w->arena, sizeof *pi);
		if (!pi) {
			fail(w, "out of memory");
			goto out;
		}
		pinball__part_info__init(pi);
		pi->name = parts[i]->name;
		pi->records = parts[i]->records;
		pi->raw_bytes = parts[i]->raw_bytes;
		pi->stored_bytes = parts[i]->stored_bytes;
		pi->file_bytes = parts[i]->offset;
		pi->chunks = parts[i]->chunks;
		infos[i] = pi;
	}
	m.n_parts = n;
	m.parts = infos;
	if (part_writer_open(meta, w->base, "meta", w->id, CHUNK_TARGET_SMALL, &w->scratch,
			     PART_ZSTD_FAST, w->err) < 0 ||
	    part_writer_add(meta, &m.base) < 0 || part_writer_close(meta) < 0)
		goto out;
	r = 0;
out:
	if (m.header)
		pinball__header__free_unpacked(m.header, NULL);
	return r;
}

/* Parts of an older pinball of the same name that this one does not have (an events part
 * of a thread it has not) must not be taken for this one's. */
static void remove_older_parts(struct pinball_writer *w, struct part_writer **parts, size_t n)
{
	const char **keep = calloc(n + 1, sizeof *keep);
	if (!keep)
		return;
	for (size_t i = 0; i < n; i++)
		keep[i] = parts[i]->name;
	char err[PINBALL_ERR_MAX];
	pinball_clean(w->base, keep, err);
	free(keep);
}

int pinball_writer_finish(struct pinball_writer *w, const struct pinball_cause *stop)
{
	if (usable(w) < 0)
		return -1;
	w->failed = true; /* until proven otherwise */
	if (flush_zero_run(w) < 0)
		return -1;
	struct part_writer **parts = malloc((w->nevents + 5) * sizeof *parts);
	if (!parts)
		return fail(w, "out of memory");
	size_t n = all_parts(w, parts);
	struct part_writer meta;
	memset(&meta, 0, sizeof meta);
	meta.fd = -1;
	int r = -1;
	for (size_t i = 0; i < n; i++)
		if (part_writer_close(parts[i]) < 0)
			goto out;
	if (write_meta(w, &meta, parts, n, stop) < 0)
		goto out;
	/* An older pinball of the same name must not look complete while parts change. */
	if (unlink(meta.final_path) < 0 && errno != ENOENT) {
		snprintf(w->err, sizeof w->err, "%s: cannot remove the old one: %s",
			 meta.final_path, strerror(errno));
		goto out;
	}
	for (size_t i = 0; i < n; i++)
		if (part_writer_commit(parts[i]) < 0)
			goto out;
	if (part_writer_commit(&meta) < 0)
		goto out;
	w->meta_bytes = meta.offset;
	w->failed = false;
	w->finished = true;
	r = 0;
	if (w->name_used)
		remove_older_parts(w, parts, n);
out:
	part_writer_discard(&meta);
	free(parts);
	return r;
}

const char *pinball_writer_error(const struct pinball_writer *w)
{
	return w->err;
}

void pinball_writer_free(struct pinball_writer *w)
{
	if (!w)
		return;
	struct part_writer *fixed[] = {&w->threads, &w->memmap, &w->pages, &w->schedule, &w->end};
	for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; i++)
		part_writer_discard(fixed[i]);
	for (size_t i = 0; i < w->nevents; i++) {
		part_writer_discard(&w->events[i]->pw);
		free(w->events[i]);
	}
	free(w->events);
	chunk_scratch_free(&w->scratch);
	free(w->header_pb);
	arena_destroy(&w->arena);
	free(w->base);
	free(w);
}

void pinball_writer_hurry(struct pinball_writer *w)
{
	w->hurried = true;
	part_writer_hurry(&w->pages, PAGES_ZSTD_LEVEL_HURRIED);
}

void pinball_writer_set_chunk_cache(struct pinball_writer *w, const char *dir)
{
	w->pages.how.cache_dir = dir;
}

void pinball_writer_set_ignored_events(struct pinball_writer *w, uint64_t count)
{
	w->ignored_events = count;
}

const struct pinball_summary *pinball_writer_summary(const struct pinball_writer *w)
{
	return &w->sum;
}

uint64_t pinball_writer_file_bytes(const struct pinball_writer *w)
{
	const struct part_writer *fixed[] = {&w->threads, &w->memmap, &w->pages, &w->schedule,
					     &w->end};
	uint64_t sum = w->meta_bytes;
	for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; i++)
		sum += fixed[i]->offset;
	for (size_t i = 0; i < w->nevents; i++)
		sum += w->events[i]->pw.offset;
	return sum;
}

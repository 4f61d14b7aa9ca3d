/* pinball_verify and checked readers: every record read is checked (consistency.h) and
 * counted, and the counts compared with P.meta. */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "consistency.h"
#include "reader_internal.h"

struct reader_check {
	struct consistency *cons;
	struct pinball_summary found; /* what the records read hold */
	bool *read_through;	      /* per part: a cursor read it to its end */
};

static void count_event(struct pinball_summary *sum, const struct pinball_event *e)
{
	switch (e->kind) {
	case PINBALL_EV_SYSCALL:
		sum->syscalls++;
		break;
	case PINBALL_EV_INSN:
		sum->nondet_insns++;
		break;
	case PINBALL_EV_SIGNAL:
		sum->signals++;
		break;
	default:
		sum->thread_events++;
	}
}

const char *reader_check_record(const struct pinball_cursor *c, const void *record)
{
	struct reader_check *k = c->r->check;
	struct pinball_summary *sum = &k->found;
	switch (c->type) {
	case PART_THREADS:
	case PART_END: {
		const struct pinball_thread *t = record;
		bool end = c->type == PART_END;
		if (end)
			sum->instructions += t->icount;
		else
			sum->threads++;
		return consistency_thread(k->cons, t, end);
	}
	case PART_MEMMAP:
		sum->map_entries++;
		return consistency_map(k->cons, record);
	case PART_PAGES: {
		const struct pinball_page *p = record;
		*(p->data ? &sum->data_pages : &sum->zero_pages) += p->npages;
		return consistency_page(k->cons, p);
	}
	case PART_SCHEDULE:
		sum->slices++;
		return consistency_slice(k->cons, record);
	case PART_EVENTS: {
		uint32_t tid = 0;
		part_type_of(c->info->name, &tid);
		count_event(sum, record);
		return consistency_event(k->cons, tid, record);
	}
	}
	return "a record of an unknown part";
}

const char *reader_check_part_end(const struct pinball_cursor *c)
{
	c->r->check->read_through[c->info - c->r->parts] = true;
	return c->type == PART_MEMMAP ? consistency_map_end(c->r->check->cons) : NULL;
}

void reader_check_free(struct reader_check *k)
{
	if (!k)
		return;
	consistency_free(k->cons);
	free(k->read_through);
	free(k);
}

int pinball_reader_check(struct pinball_reader *r, char err[PINBALL_ERR_MAX])
{
	struct reader_check *k = calloc(1, sizeof *k);
	if (k) {
		k->cons = consistency_new(&r->header);
		k->read_through = calloc(r->nparts + 1, sizeof *k->read_through);
	}
	if (!k || !k->cons || !k->read_through) {
		reader_check_free(k);
		snprintf(err, PINBALL_ERR_MAX, "out of memory");
		return -1;
	}
	r->check = k;
	return 0;
}

/* Reads part i to its end through a cursor, which checks and counts each record. */
static int read_part(const struct pinball_reader *r, size_t i, char *err)
{
	struct pinball_cursor *c = pinball_cursor_open(r, r->parts[i].name, err);
	if (!c)
		return -1;
	int got;
	union {
		struct pinball_thread thread;
		struct pinball_map_entry map;
		struct pinball_page page;
		struct pinball_event event;
		struct pinball_slice slice;
	} u;
	do {
		switch (r->types[i]) {
		case PART_THREADS:
		case PART_END:
			got = pinball_next_thread(c, &u.thread);
			break;
		case PART_MEMMAP:
			got = pinball_next_map(c, &u.map);
			break;
		case PART_PAGES:
			got = pinball_next_page(c, &u.page);
			break;
		case PART_SCHEDULE:
			got = pinball_next_slice(c, &u.slice);
			break;
		case PART_EVENTS:
			got = pinball_next_event(c, &u.event);
			break;
		default:
			got = -1;
		}
	} while (got > 0);
	if (got < 0)
		snprintf(err, PINBALL_ERR_MAX, "%s", pinball_cursor_error(c));
	pinball_cursor_close(c);
	return got;
}

/* The summary in P.meta must count what the parts hold. */
static int compare_summary(const char *base, const struct pinball_summary *said,
			   const struct pinball_summary *found, char *err)
{
#define FIELD(f)                                                                                   \
	{                                                                                          \
#f, offsetof(struct pinball_summary, f)                                            \
	}
	static const struct {
		const char *name;
		size_t offset;
	} fields[] = {FIELD(instructions), FIELD(syscalls),	 FIELD(nondet_insns),
		      FIELD(signals),	   FIELD(thread_events), FIELD(data_pages),
		      FIELD(zero_pages),   FIELD(map_entries),	 FIELD(slices)};
#undef FIELD
	if (said->threads != found->threads) {
		snprintf(err, PINBALL_ERR_MAX,
			 "%s.meta: summary says %u threads, the parts hold %u", base, said->threads,
			 found->threads);
		return -1;
	}
	for (size_t i = 0; i < sizeof fields / sizeof fields[0]; i++) {
		uint64_t a, b;
		memcpy(&a, (const char *)said + fields[i].offset, sizeof a);
		memcpy(&b, (const char *)found + fields[i].offset, sizeof b);
		if (a != b) {
			snprintf(err, PINBALL_ERR_MAX,
				 "%s.meta: summary says %llu %s, the parts hold %llu", base,
				 (unsigned long long)a, fields[i].name, (unsigned long long)b);
			return -1;
		}
	}
	return 0;
}

int pinball_reader_checked(struct pinball_reader *r, char err[PINBALL_ERR_MAX])
{
	struct reader_check *k = r->check;
	/* The memory map first: pages are checked against it. */
	for (int map_pass = 1; map_pass >= 0; map_pass--)
		for (size_t i = 0; i < r->nparts; i++)
			if ((r->types[i] == PART_MEMMAP) == map_pass && !k->read_through[i] &&
			    read_part(r, i, err))
				return -1;
	const char *bad = consistency_finish(k->cons);
	if (bad) {
		snprintf(err, PINBALL_ERR_MAX, "%s: %s", r->base, bad);
		return -1;
	}
	return compare_summary(r->base, &r->summary, &k->found, err);
}

int pinball_verify(const char *basename, char err[PINBALL_ERR_MAX])
{
	struct pinball_reader *r = pinball_reader_open(basename, err);
	if (!r)
		return -1;
	int ok = pinball_reader_check(r, err) ? -1 : pinball_reader_checked(r, err);
	pinball_reader_close(r);
	return ok;
}

/* pinball_verify: read everything, recount, compare with P.meta. */
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "consistency.h"
#include "reader_internal.h"

/* Reads one part to its end, adding what it holds to *sum and checking each record. */
static int read_part(const struct pinball_reader *r, size_t i, struct pinball_summary *sum,
		     struct consistency *cons, char *err)
{
	const char *name = r->parts[i].name;
	struct pinball_cursor *c = pinball_cursor_open(r, name, err);
	if (!c)
		return -1;
	int got;
	const char *bad = NULL;
	union {
		struct pinball_thread thread;
		struct pinball_map_entry map;
		struct pinball_page page;
		struct pinball_event event;
		struct pinball_slice slice;
	} u;
	uint32_t tid = 0;
	switch (r->types[i]) {
	case PART_THREADS:
	case PART_END: {
		bool end = r->types[i] == PART_END;
		while (!bad && (got = pinball_next_thread(c, &u.thread)) > 0) {
			if (end)
				sum->instructions += u.thread.icount;
			else
				sum->threads++;
			bad = consistency_thread(cons, &u.thread, end);
		}
		break;
	}
	case PART_MEMMAP:
		while (!bad && (got = pinball_next_map(c, &u.map)) > 0) {
			sum->map_entries++;
			bad = consistency_map(cons, &u.map);
		}
		break;
	case PART_PAGES:
		while (!bad && (got = pinball_next_page(c, &u.page)) > 0) {
			*(u.page.data ? &sum->data_pages : &sum->zero_pages) += u.page.npages;
			bad = consistency_page(cons, &u.page);
		}
		break;
	case PART_SCHEDULE:
		while (!bad && (got = pinball_next_slice(c, &u.slice)) > 0) {
			sum->slices++;
			bad = consistency_slice(cons, &u.slice);
		}
		break;
	case PART_EVENTS:
		part_type_of(name, &tid);
		while (!bad && (got = pinball_next_event(c, &u.event)) > 0) {
			switch (u.event.kind) {
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
			bad = consistency_event(cons, tid, &u.event);
		}
		break;
	default:
		got = -1;
	}
	if (bad) {
		snprintf(err, PINBALL_ERR_MAX, "%s.%s: %s", r->base, name, bad);
		got = -1;
	} else if (got < 0) {
		snprintf(err, PINBALL_ERR_MAX, "%s", pinball_cursor_error(c));
	}
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

int pinball_verify(const char *basename, char err[PINBALL_ERR_MAX])
{
	struct pinball_reader *r = pinball_reader_open(basename, err);
	if (!r)
		return -1;
	struct consistency *cons = consistency_new(&r->header);
	struct pinball_summary sum;
	memset(&sum, 0, sizeof sum);
	int ok = cons ? 0 : -1;
	if (!cons)
		snprintf(err, PINBALL_ERR_MAX, "out of memory");
	/* The memory map first: pages are checked against it. */
	for (size_t i = 0; ok == 0 && i < r->nparts; i++)
		if (r->types[i] == PART_MEMMAP)
			ok = read_part(r, i, &sum, cons, err);
	for (size_t i = 0; ok == 0 && i < r->nparts; i++)
		if (r->types[i] != PART_MEMMAP)
			ok = read_part(r, i, &sum, cons, err);
	const char *bad = ok == 0 ? consistency_finish(cons) : NULL;
	if (bad) {
		snprintf(err, PINBALL_ERR_MAX, "%s: %s", basename, bad);
		ok = -1;
	}
	if (ok == 0)
		ok = compare_summary(basename, &r->summary, &sum, err);
	consistency_free(cons);
	pinball_reader_close(r);
	return ok;
}

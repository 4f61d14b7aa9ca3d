/* pinball_verify: read everything, recount, compare with P.meta. */
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "reader_internal.h"

/* Reads one part to its end, adding what it holds to *sum. */
static int read_part(const struct pinball_reader *r, size_t i, struct pinball_summary *sum,
		     char *err)
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
	switch (r->types[i]) {
	case PART_THREADS:
		while ((got = pinball_next_thread(c, &u.thread)) > 0)
			sum->threads++;
		break;
	case PART_END:
		while ((got = pinball_next_thread(c, &u.thread)) > 0)
			sum->instructions += u.thread.icount;
		break;
	case PART_MEMMAP:
		while ((got = pinball_next_map(c, &u.map)) > 0)
			sum->map_entries++;
		break;
	case PART_PAGES:
		while ((got = pinball_next_page(c, &u.page)) > 0)
			*(u.page.data ? &sum->data_pages : &sum->zero_pages) += u.page.npages;
		break;
	case PART_SCHEDULE:
		while ((got = pinball_next_slice(c, &u.slice)) > 0)
			sum->slices++;
		break;
	case PART_EVENTS:
		while ((got = pinball_next_event(c, &u.event)) > 0) {
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
		}
		break;
	default:
		got = -1;
	}
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

int pinball_verify(const char *basename, char err[PINBALL_ERR_MAX])
{
	struct pinball_reader *r = pinball_reader_open(basename, err);
	if (!r)
		return -1;
	struct pinball_summary sum;
	memset(&sum, 0, sizeof sum);
	int ok = 0;
	for (size_t i = 0; ok == 0 && i < r->nparts; i++)
		ok = read_part(r, i, &sum, err);
	if (ok == 0)
		ok = compare_summary(basename, &r->summary, &sum, err);
	pinball_reader_close(r);
	return ok;
}

const char *pinball_insn_name(enum pinball_insn_kind kind)
{
	static const char *const names[] = {"?",      "rdtsc", "rdtscp", "rdrand",
					    "rdseed", "rdpid", "cpuid",	 "xgetbv"};
	return (unsigned)kind < sizeof names / sizeof names[0] ? names[kind] : "?";
}

const char *pinball_event_name(enum pinball_event_kind kind)
{
	switch (kind) {
	case PINBALL_EV_SYSCALL:
		return "syscall";
	case PINBALL_EV_INSN:
		return "insn";
	case PINBALL_EV_SIGNAL:
		return "signal";
	case PINBALL_EV_THREAD_CREATE:
		return "thread_create";
	case PINBALL_EV_THREAD_EXIT:
		return "thread_exit";
	}
	return "?";
}

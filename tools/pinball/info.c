/* pinball info: what a user wants first, from P.meta alone. */
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "pinball_cli.h"

static void print_cause(const char *label, const struct pinball_cause *c)
{
	printf("  %-13s %s%s%s", label, *c->kind ? c->kind : "-", *c->spec ? " " : "", c->spec);
	if (c->tid)
		printf(" (tid %u at icount %" PRIu64 ")", c->tid, c->icount);
	printf("\n");
}

struct thread_line {
	uint32_t tid;
	uint64_t instructions, slices;
	bool starts_in_syscall, ends_in_syscall;
};

/* Marks the threads that start inside a syscall (P.threads). */
static int read_starts(struct pinball_reader *r, struct thread_line *lines, size_t n,
		       char err[PINBALL_ERR_MAX])
{
	struct pinball_cursor *c = pinball_cursor_open(r, "threads", err);
	if (!c)
		return -1;
	struct pinball_thread t;
	int rc;
	while ((rc = pinball_next_thread(c, &t)) == 1)
		for (size_t i = 0; i < n; i++)
			if (lines[i].tid == t.tid)
				lines[i].starts_in_syscall = t.in_syscall;
	if (rc < 0)
		snprintf(err, PINBALL_ERR_MAX, "%s", pinball_cursor_error(c));
	pinball_cursor_close(c);
	return rc < 0 ? -1 : 0;
}

/* Every thread's instructions (P.end), schedule slices (P.schedule) and syscalls at its
 * ends (P.threads, P.end). */
static int read_thread_lines(struct pinball_reader *r, struct thread_line **out, size_t *n,
			     char err[PINBALL_ERR_MAX])
{
	*out = NULL;
	*n = 0;
	struct pinball_cursor *c = pinball_cursor_open(r, "end", err);
	if (!c)
		return -1;
	struct pinball_thread t;
	int rc;
	size_t cap = 0;
	while ((rc = pinball_next_thread(c, &t)) == 1) {
		if (*n == cap) {
			cap = cap ? 2 * cap : 16;
			struct thread_line *m = realloc(*out, cap * sizeof *m);
			if (!m) {
				snprintf(err, PINBALL_ERR_MAX, "out of memory");
				rc = -1;
				break;
			}
			*out = m;
		}
		(*out)[(*n)++] = (struct thread_line){t.tid, t.icount, 0, false, t.in_syscall};
	}
	if (rc < 0 && !err[0])
		snprintf(err, PINBALL_ERR_MAX, "%s", pinball_cursor_error(c));
	pinball_cursor_close(c);
	if (rc < 0 || !(c = pinball_cursor_open(r, "schedule", err)))
		return -1;
	struct pinball_slice s;
	while ((rc = pinball_next_slice(c, &s)) == 1)
		for (size_t i = 0; i < *n; i++)
			if ((*out)[i].tid == s.tid)
				(*out)[i].slices++;
	if (rc < 0)
		snprintf(err, PINBALL_ERR_MAX, "%s", pinball_cursor_error(c));
	pinball_cursor_close(c);
	return rc < 0 ? -1 : read_starts(r, *out, *n, err);
}

static int by_tid(const void *a, const void *b)
{
	uint32_t x = ((const struct thread_line *)a)->tid, y = ((const struct thread_line *)b)->tid;
	return x < y ? -1 : x > y;
}

/* One line a thread, the first 32 of them by tid. */
static int print_threads(struct pinball_reader *r, const char *basename)
{
	enum { SHOWN = 32 };
	char err[PINBALL_ERR_MAX] = "";
	struct thread_line *lines;
	size_t n;
	if (read_thread_lines(r, &lines, &n, err)) {
		free(lines);
		fprintf(stderr, "pinball: error: %s: %s\n", basename, err);
		return 1;
	}
	qsort(lines, n, sizeof *lines, by_tid);
	for (size_t i = 0; i < n && i < SHOWN; i++)
		printf("  thread %-6u %" PRIu64 " instructions in %" PRIu64 " slices%s%s\n",
		       lines[i].tid, lines[i].instructions, lines[i].slices,
		       lines[i].starts_in_syscall ? ", starts inside a syscall" : "",
		       lines[i].ends_in_syscall ? ", ends inside a syscall" : "");
	if (n > SHOWN)
		printf("  ... %zu threads more (pinball dump --part end)\n", n - SHOWN);
	free(lines);
	return 0;
}

int cmd_info(struct pinball_reader *r, const char *basename)
{
	const struct pinball_header *h = pinball_reader_header(r);
	const struct pinball_summary *s = pinball_reader_summary(r);
	const uint8_t *id = pinball_reader_id(r);
	char a[32], b[32], when[64] = "?";
	printf("pinball %s\n  %-13s ", basename, "id");
	for (int i = 0; i < PINBALL_ID_SIZE; i++)
		printf("%02x", id[i]);
	printf("\n  %-13s %u.%u, written by %s\n", "format", h->format_major, h->format_minor,
	       h->tool_version);
	time_t t = (time_t)(h->creation_time_ns / 1000000000u);
	struct tm tm;
	if (gmtime_r(&t, &tm))
		strftime(when, sizeof when, "%Y-%m-%d %H:%M:%S UTC", &tm);
	printf("  %-13s %s, pid %u\n  %-13s", "created", when, h->pid, "command");
	for (size_t i = 0; i < h->argc; i++)
		printf(" %s", h->argv[i]);
	printf("\n  %-13s %s\n", "cwd", h->cwd);
	printf("  %-13s %s %s family %u model %u stepping %u, page size %u\n", "machine", h->arch,
	       h->cpu_vendor, h->cpu_family, h->cpu_model, h->cpu_stepping, h->page_size);
	print_cause("region start", &h->region_start);
	print_cause("region stop", pinball_reader_region_stop(r));
	printf("  %-13s %u at start", "threads", s->threads);
	uint32_t tids[16];
	size_t n = pinball_reader_event_tids(r, tids, 16);
	printf(", %zu with events", n);
	for (size_t i = 0; i < n && i < 16; i++)
		printf("%s%u", i ? " " : " (tids ", tids[i]);
	printf("%s\n", n == 0 ? "" : n > 16 ? " ...)" : ")");
	printf("  %-13s %zu actions other than the default, alternate stack %s\n", "signals",
	       h->nsigactions, h->sigstack.flags & SS_DISABLE ? "none" : "set");
	printf("  %-13s %" PRIu64 " in %" PRIu64 " schedule slices\n", "instructions",
	       s->instructions, s->slices);
	int status = print_threads(r, basename);
	printf("  %-13s %" PRIu64 " controller events ignored by the logger (region transitions)\n",
	       "ignored", pinball_reader_ignored_events(r));
	printf("  %-13s %" PRIu64 " syscalls, %" PRIu64 " non-deterministic instructions, %" PRIu64
	       " signals, %" PRIu64 " thread creations/exits\n",
	       "events", s->syscalls, s->nondet_insns, s->signals, s->thread_events);
	printf("  %-13s %" PRIu64 " (%s), %" PRIu64 " with data, %" PRIu64 " all-zero; %" PRIu64
	       " map entries\n",
	       "pages", s->data_pages + s->zero_pages,
	       pinball_human_size((s->data_pages + s->zero_pages) * h->page_size, a, sizeof a),
	       s->data_pages, s->zero_pages, s->map_entries);
	uint64_t raw = 0, stored = 0, file = 0;
	for (size_t i = 0; i < pinball_reader_part_count(r); i++) {
		const struct pinball_part_info *p = pinball_reader_part(r, i);
		raw += p->raw_bytes;
		stored += p->stored_bytes;
		file += p->file_bytes;
	}
	printf("  %-13s raw %s, compressed %s, ratio %.2f; files %s\n", "size",
	       pinball_human_size(raw, a, sizeof a), pinball_human_size(stored, b, sizeof b),
	       stored ? (double)raw / (double)stored : 1.0,
	       pinball_human_size(file, when, sizeof when));
	printf("  %-18s %10s %12s %12s %7s\n", "part", "records", "raw", "compressed", "ratio");
	for (size_t i = 0; i < pinball_reader_part_count(r); i++) {
		const struct pinball_part_info *p = pinball_reader_part(r, i);
		printf("  %-18s %10" PRIu64 " %12s %12s %7.2f\n", p->name, p->records,
		       pinball_human_size(p->raw_bytes, a, sizeof a),
		       pinball_human_size(p->stored_bytes, b, sizeof b),
		       p->stored_bytes ? (double)p->raw_bytes / (double)p->stored_bytes : 1.0);
	}
	return status;
}

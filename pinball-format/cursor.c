/* Cursors: streaming the records of one part, decoded into the public C structs. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "convert.h"
#include "reader_internal.h"

static const char *const type_names[] = {
    [PART_THREADS] = "threads", [PART_MEMMAP] = "memmap",     [PART_PAGES] = "pages",
    [PART_EVENTS] = "events",	[PART_SCHEDULE] = "schedule", [PART_END] = "end",
};

struct pinball_cursor *pinball_cursor_open(const struct pinball_reader *r, const char *part,
					   char err[PINBALL_ERR_MAX])
{
	size_t i = 0;
	while (i < r->nparts && strcmp(r->parts[i].name, part) != 0)
		i++;
	if (i == r->nparts) {
		snprintf(err, PINBALL_ERR_MAX, "%s: no part named '%s'", r->base, part);
		return NULL;
	}
	struct pinball_cursor *c = calloc(1, sizeof *c);
	char *path = NULL;
	if (!c || asprintf(&path, "%s.%s", r->base, part) < 0) {
		snprintf(err, PINBALL_ERR_MAX, "%s: out of memory", r->base);
		free(c);
		return NULL;
	}
	c->r = r;
	c->info = &r->parts[i];
	c->type = r->types[i];
	arena_init(&c->arena);
	int ok = part_reader_open(&c->pr, path, part, r->id, c->err);
	free(path);
	if (ok < 0) {
		snprintf(err, PINBALL_ERR_MAX, "%s", c->err);
		pinball_cursor_close(c);
		return NULL;
	}
	return c;
}

void pinball_cursor_close(struct pinball_cursor *c)
{
	if (!c)
		return;
	part_reader_close(&c->pr);
	arena_destroy(&c->arena);
	free(c);
}

const char *pinball_cursor_error(const struct pinball_cursor *c)
{
	return c->err;
}

static int fail(struct pinball_cursor *c, const char *why)
{
	c->failed = true;
	return part_reader_fail(&c->pr, "record %llu: %s", (unsigned long long)c->pr.records - 1,
				why);
}

/* At the end of the part: what P.meta says about it must match what was read. */
static int check_totals(struct pinball_cursor *c)
{
	const struct part_reader *pr = &c->pr;
	const struct pinball_part_info *in = c->info;
	if (pr->records == in->records && pr->raw_bytes == in->raw_bytes &&
	    pr->stored_bytes == in->stored_bytes && pr->chunks == in->chunks)
		return 0;
	c->failed = true;
	snprintf(c->err, sizeof c->err,
		 "%s: offset %llu: part holds %llu records in %u chunks (%llu/%llu bytes), "
		 "%s.meta says %llu in %u (%llu/%llu)",
		 pr->path, (unsigned long long)pr->offset, (unsigned long long)pr->records,
		 pr->chunks, (unsigned long long)pr->raw_bytes,
		 (unsigned long long)pr->stored_bytes, c->r->base, (unsigned long long)in->records,
		 in->chunks, (unsigned long long)in->raw_bytes,
		 (unsigned long long)in->stored_bytes);
	return -1;
}

/* The record is in `out` (NULL: the part ended): on a checked reader, 1 (0 at the end) when
 * it passes the checks, else -1 with what is wrong (as pinball_verify says it). */
static int checked(struct pinball_cursor *c, const void *out)
{
	const char *bad = !c->r->check ? NULL
			  : out	       ? reader_check_record(c, out)
				       : reader_check_part_end(c);
	if (!bad)
		return out != NULL;
	c->failed = true;
	snprintf(c->err, sizeof c->err, "%s.%s: %s", c->r->base, c->info->name, bad);
	return -1;
}

/* Unpacks the next record of the part as a `desc` message: 1, 0 at the end, -1. */
static int next_message(struct pinball_cursor *c, enum part_type want,
			const ProtobufCMessageDescriptor *desc, void **msg)
{
	if (c->failed)
		return -1;
	if (c->type != want) {
		snprintf(c->err, sizeof c->err, "%s: a %s part holds no %s records", c->pr.path,
			 type_names[c->type], type_names[want]);
		return -1;
	}
	const uint8_t *rec;
	size_t len;
	int got = part_reader_next(&c->pr, &rec, &len);
	if (got < 0) {
		c->failed = true;
		return -1;
	}
	if (got == 0)
		return check_totals(c) ? -1 : checked(c, NULL);
	arena_reset(&c->arena);
	*msg = protobuf_c_message_unpack(desc, &c->arena.pb, len, rec);
	if (!*msg)
		return fail(c, "not a valid protobuf record of this part");
	return 1;
}

#define DECODE(c, type, desc, T, m)                                                                \
	T *m;                                                                                      \
	int got_ = next_message((c), (type), &(desc), (void **)&m);                                \
	if (got_ <= 0)                                                                             \
		return got_;

int pinball_next_thread(struct pinball_cursor *c, struct pinball_thread *out)
{
	enum part_type want = c->type == PART_END ? PART_END : PART_THREADS;
	DECODE(c, want, pinball__thread__descriptor, Pinball__Thread, pt);
	const char *why = thread_from_pb(pt, out);
	return why ? fail(c, why) : checked(c, out);
}

int pinball_next_map(struct pinball_cursor *c, struct pinball_map_entry *out)
{
	DECODE(c, PART_MEMMAP, pinball__map_entry__descriptor, Pinball__MapEntry, pm);
	map_from_pb(pm, out);
	return checked(c, out);
}

int pinball_next_page(struct pinball_cursor *c, struct pinball_page *out)
{
	DECODE(c, PART_PAGES, pinball__page__descriptor, Pinball__Page, pp);
	const char *why = page_from_pb(pp, c->r->header.page_size, out);
	return why ? fail(c, why) : checked(c, out);
}

int pinball_next_event(struct pinball_cursor *c, struct pinball_event *out)
{
	DECODE(c, PART_EVENTS, pinball__event__descriptor, Pinball__Event, pe);
	const char *why = event_from_pb(pe, out, &c->arena);
	return why ? fail(c, why) : checked(c, out);
}

int pinball_next_slice(struct pinball_cursor *c, struct pinball_slice *out)
{
	DECODE(c, PART_SCHEDULE, pinball__slice__descriptor, Pinball__Slice, ps);
	out->tid = ps->tid;
	out->instructions = ps->instructions;
	return checked(c, out);
}

/* Opening a pinball: P.meta, then a look at the header and size of every part it lists. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "convert.h"
#include "reader_internal.h"

int part_type_of(const char *name, uint32_t *tid)
{
	static const struct {
		const char *name;
		enum part_type type;
	} fixed[] = {{"threads", PART_THREADS},
		     {"memmap", PART_MEMMAP},
		     {"pages", PART_PAGES},
		     {"schedule", PART_SCHEDULE},
		     {"end", PART_END}};
	for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; i++)
		if (strcmp(name, fixed[i].name) == 0)
			return (int)fixed[i].type;
	if (strncmp(name, "events.", 7) != 0 || name[7] < '0' || name[7] > '9')
		return -1;
	char *end;
	unsigned long v = strtoul(name + 7, &end, 10);
	if (*end || v > UINT32_MAX || (name[7] == '0' && name[8]))
		return -1;
	if (tid)
		*tid = (uint32_t)v;
	return PART_EVENTS;
}

/* Checks the parts P.meta lists: known names, each fixed part exactly once, no repeats. */
static const char *check_part_list(struct pinball_reader *r)
{
	unsigned seen_fixed = 0;
	for (size_t i = 0; i < r->nparts; i++) {
		int t = part_type_of(r->parts[i].name, NULL);
		if (t < 0)
			return "lists a part of unknown name";
		for (size_t j = 0; j < i; j++)
			if (strcmp(r->parts[i].name, r->parts[j].name) == 0)
				return "lists a part twice";
		if (t != PART_EVENTS)
			seen_fixed |= 1u << t;
		r->types[i] = (enum part_type)t;
	}
	if (seen_fixed != (1u << PART_THREADS | 1u << PART_MEMMAP | 1u << PART_PAGES |
			   1u << PART_SCHEDULE | 1u << PART_END))
		return "does not list every part";
	return NULL;
}

/* Reads and checks the one Meta record of P.meta. */
static int load_meta(struct pinball_reader *r, struct part_reader *pr, char *err)
{
	const uint8_t *rec;
	size_t len;
	int got = part_reader_next(pr, &rec, &len);
	if (got == 0)
		return part_reader_fail(pr, "no Meta record");
	if (got < 0)
		return -1;
	r->meta = pinball__meta__unpack(NULL, len, rec);
	if (!r->meta || !r->meta->header || !r->meta->summary)
		return part_reader_fail(pr, "record 0: not a valid Meta message");
	if ((got = part_reader_next(pr, &rec, &len)) != 0)
		return got < 0 ? -1 : part_reader_fail(pr, "more than one Meta record");
	const char *why = header_from_pb(r->meta->header, &r->header, &r->arena);
	Pinball__Meta *m = r->meta;
	r->nparts = m->n_parts;
	r->parts = calloc(m->n_parts + 1, sizeof *r->parts);
	r->types = calloc(m->n_parts + 1, sizeof *r->types);
	if (!why && (!r->parts || !r->types))
		why = "out of memory";
	for (size_t i = 0; !why && i < m->n_parts; i++) {
		const Pinball__PartInfo *pi = m->parts[i];
		r->parts[i] =
		    (struct pinball_part_info){pi->name,	 pi->records,	 pi->raw_bytes,
					       pi->stored_bytes, pi->file_bytes, pi->chunks};
	}
	if (!why)
		why = check_part_list(r);
	if (why) {
		snprintf(err, PINBALL_ERR_MAX, "%s.meta: %s", r->base, why);
		return -1;
	}
	cause_from_pb(m->region_stop, &r->stop);
	summary_from_pb(m->summary, &r->summary);
	return 0;
}

/* Opens every part to check its header (id included) and its size against P.meta. */
static int check_parts(struct pinball_reader *r, char *err)
{
	for (size_t i = 0; i < r->nparts; i++) {
		char *path;
		if (asprintf(&path, "%s.%s", r->base, r->parts[i].name) < 0) {
			snprintf(err, PINBALL_ERR_MAX, "%s: out of memory", r->base);
			return -1;
		}
		struct part_reader pr;
		int ok = part_reader_open(&pr, path, r->parts[i].name, r->id, err);
		if (ok == 0 && pr.file_size != r->parts[i].file_bytes) {
			snprintf(err, PINBALL_ERR_MAX,
				 "%s: offset %llu: file has %llu bytes, %s.meta "
				 "says %llu",
				 path, (unsigned long long)pr.file_size,
				 (unsigned long long)pr.file_size, r->base,
				 (unsigned long long)r->parts[i].file_bytes);
			ok = -1;
		}
		part_reader_close(&pr);
		free(path);
		if (ok < 0)
			return -1;
	}
	return 0;
}

struct pinball_reader *pinball_reader_open(const char *basename, char err[PINBALL_ERR_MAX])
{
	struct pinball_reader *r = calloc(1, sizeof *r);
	char *path = NULL;
	if (!r || !(r->base = strdup(basename)) || asprintf(&path, "%s.meta", basename) < 0) {
		snprintf(err, PINBALL_ERR_MAX, "%s: out of memory", basename);
		free(r ? r->base : NULL);
		free(r);
		return NULL;
	}
	arena_init(&r->arena);
	struct part_reader pr;
	int ok = part_reader_open(&pr, path, "meta", NULL, err);
	if (ok < 0 && access(path, F_OK) < 0)
		pinball_describe_unfinished(basename, err);
	if (ok == 0) {
		memcpy(r->id, pr.id, sizeof r->id);
		ok = load_meta(r, &pr, err);
	}
	part_reader_close(&pr);
	free(path);
	if (ok < 0 || check_parts(r, err) < 0) {
		pinball_reader_close(r);
		return NULL;
	}
	return r;
}

void pinball_reader_close(struct pinball_reader *r)
{
	if (!r)
		return;
	reader_check_free(r->check);
	if (r->meta)
		pinball__meta__free_unpacked(r->meta, NULL);
	arena_destroy(&r->arena);
	free(r->parts);
	free(r->types);
	free(r->base);
	free(r);
}

const uint8_t *pinball_reader_id(const struct pinball_reader *r)
{
	return r->id;
}
const struct pinball_header *pinball_reader_header(const struct pinball_reader *r)
{
	return &r->header;
}
const struct pinball_cause *pinball_reader_region_stop(const struct pinball_reader *r)
{
	return &r->stop;
}
const struct pinball_summary *pinball_reader_summary(const struct pinball_reader *r)
{
	return &r->summary;
}
uint64_t pinball_reader_ignored_events(const struct pinball_reader *r)
{
	return r->meta->ignored_events;
}
size_t pinball_reader_part_count(const struct pinball_reader *r)
{
	return r->nparts;
}
const struct pinball_part_info *pinball_reader_part(const struct pinball_reader *r, size_t i)
{
	return i < r->nparts ? &r->parts[i] : NULL;
}

size_t pinball_reader_event_tids(const struct pinball_reader *r, uint32_t *tids, size_t cap)
{
	size_t n = 0;
	for (size_t i = 0; i < r->nparts; i++) {
		uint32_t tid;
		if (part_type_of(r->parts[i].name, &tid) != PART_EVENTS)
			continue;
		if (n < cap)
			tids[n] = tid;
		n++;
	}
	return n;
}

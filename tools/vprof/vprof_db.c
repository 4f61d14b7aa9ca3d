#include "vprof_db.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void write_stat(FILE *f, const struct vp_stat *s)
{
	fprintf(f, "insn 0x%" PRIx64 " ", s->pc);
	for (uint8_t k = 0; k < s->length; k++)
		fprintf(f, "%02x", s->bytes[k]);
	fprintf(f, "%s %" PRIu64 " %" PRIu64 " %" PRIu64 " 0x%" PRIx64 " 0x%" PRIx64 "\n",
		s->length ? "" : "-", s->executions, s->samples, s->other, s->samples ? s->min : 0,
		s->samples ? s->max : 0);
	for (uint32_t k = 0; k < s->nvalues; k++) {
		const struct vp_count *c = &s->values[k];
		fprintf(f, "value 0x%" PRIx64 " %" PRIu64 " 0x%" PRIx64 " 0x%" PRIx64 "\n",
			c->value, c->count, c->context[0], c->context[1]);
	}
}

int vp_db_write(const char *path, const struct vp_profile *p, char *err, size_t errlen)
{
	char tmp[4096];
	snprintf(tmp, sizeof tmp, "%s.tmp%d", path, (int)getpid());
	FILE *f = fopen(tmp, "w");
	if (!f) {
		snprintf(err, errlen, "cannot write '%s': %s", tmp, strerror(errno));
		return -1;
	}
	fprintf(f, "%s %d\nprofiler %s\nplugin %s\ncontexts %u\nkept %u\n", VP_DB_MAGIC,
		VP_DB_VERSION, p->name, p->plugin, p->contexts, p->values_kept);
	if (p->sample > 1)
		fprintf(f, "sampled %u\n", p->sample);
	for (size_t i = 0; i < p->nimages; i++)
		fprintf(f, "image 0x%" PRIx64 " 0x%" PRIx64 " 0x%" PRIx64 " %s\n",
			p->images[i].start, p->images[i].end, p->images[i].offset,
			p->images[i].path);
	for (size_t i = 0; i < p->nstats; i++)
		write_stat(f, p->stats[i]);
	fprintf(f, "end\n");
	bool failed = ferror(f);
	if (fclose(f) || failed || rename(tmp, path)) {
		snprintf(err, errlen, "cannot write '%s': %s", path, strerror(errno));
		unlink(tmp);
		return -1;
	}
	return 0;
}

/* The reader's state: the file, its line, the profile so far. */
struct reader {
	const char *path;
	FILE *f;
	unsigned line;
	char *text;
	size_t cap;
	struct vp_profile *p;
	char *err;
	size_t errlen;
};

static bool fail(struct reader *r, const char *what)
{
	snprintf(r->err, r->errlen, "%s:%u: %s", r->path, r->line, what);
	return false;
}

/* The next line without its newline; false at the end of the file. */
static bool next_line(struct reader *r)
{
	ssize_t n = getline(&r->text, &r->cap, r->f);
	if (n <= 0)
		return false;
	r->line++;
	if (r->text[n - 1] == '\n')
		r->text[n - 1] = '\0';
	return true;
}

static bool parse_bytes(const char *hex, struct vp_stat *s)
{
	if (!strcmp(hex, "-"))
		return true;
	size_t n = strlen(hex);
	if (n % 2 || n / 2 > sizeof s->bytes || !n)
		return false;
	for (size_t k = 0; k < n / 2; k++) {
		unsigned byte;
		if (sscanf(hex + 2 * k, "%2x", &byte) != 1)
			return false;
		s->bytes[k] = (uint8_t)byte;
	}
	s->length = (uint8_t)(n / 2);
	return true;
}

static bool add_stat(struct reader *r, struct vp_stat *s)
{
	struct vp_profile *p = r->p;
	if (p->nstats && p->stats[p->nstats - 1]->pc >= s->pc)
		return fail(r, "instructions out of order");
	if (p->nstats == p->capacity) {
		size_t cap = p->capacity ? 2 * p->capacity : 256;
		struct vp_stat **grown = realloc(p->stats, cap * sizeof *grown);
		if (!grown)
			return fail(r, "out of memory");
		memset(grown + p->capacity, 0, (cap - p->capacity) * sizeof *grown);
		p->stats = grown;
		p->capacity = cap;
	}
	struct vp_stat *copy = malloc(sizeof *copy);
	if (!copy)
		return fail(r, "out of memory");
	*copy = *s;
	p->stats[p->nstats++] = copy;
	return true;
}

static bool parse_insn(struct reader *r)
{
	struct vp_stat s = {0};
	char hex[64];
	if (sscanf(r->text,
		   "insn %" SCNx64 " %63s %" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNx64 " %" SCNx64,
		   &s.pc, hex, &s.executions, &s.samples, &s.other, &s.min, &s.max) != 7 ||
	    !parse_bytes(hex, &s))
		return fail(r, "a bad 'insn' line");
	return add_stat(r, &s);
}

static bool parse_value(struct reader *r)
{
	struct vp_profile *p = r->p;
	struct vp_count c;
	if (!p->nstats)
		return fail(r, "a 'value' line before any 'insn' line");
	if (sscanf(r->text, "value %" SCNx64 " %" SCNu64 " %" SCNx64 " %" SCNx64, &c.value,
		   &c.count, &c.context[0], &c.context[1]) != 4 ||
	    !c.count)
		return fail(r, "a bad 'value' line");
	struct vp_stat *s = p->stats[p->nstats - 1];
	/* Room doubles at each power of two. */
	if (!(s->nvalues & (s->nvalues - 1))) {
		struct vp_count *grown =
		    realloc(s->values, (s->nvalues ? 2 * s->nvalues : 1) * sizeof *grown);
		if (!grown)
			return fail(r, "out of memory");
		s->values = grown;
	}
	s->values[s->nvalues++] = c;
	return true;
}

/* Right after the header, from a profile of sampled buffers. */
static bool parse_sampled(struct reader *r)
{
	unsigned period;
	char extra;
	if (r->p->nimages || r->p->nstats || r->p->sample != 1 ||
	    !isdigit((unsigned char)r->text[8]) ||
	    sscanf(r->text + 8, "%u%c", &period, &extra) != 1 || period < 2)
		return fail(r, "a bad 'sampled' line");
	r->p->sample = period;
	return true;
}

static bool parse_image(struct reader *r)
{
	struct vp_profile *p = r->p;
	struct vp_image_map m;
	int at = 0;
	if (sscanf(r->text, "image %" SCNx64 " %" SCNx64 " %" SCNx64 " %n", &m.start, &m.end,
		   &m.offset, &at) != 3 ||
	    !at || !r->text[at])
		return fail(r, "a bad 'image' line");
	struct vp_image_map *grown = realloc(p->images, (p->nimages + 1) * sizeof *grown);
	if (!grown || !(m.path = strdup(r->text + at)))
		return fail(r, "out of memory");
	p->images = grown;
	p->images[p->nimages++] = m;
	return true;
}

/* "KEY VALUE" header lines, in order. */
static bool header_line(struct reader *r, const char *key, char **value)
{
	size_t n = strlen(key);
	if (!next_line(r) || strncmp(r->text, key, n) || r->text[n] != ' ' || !r->text[n + 1])
		return fail(r, "not a value profile made by this pintrace (a missing header line)");
	*value = r->text + n + 1;
	return true;
}

static bool parse(struct reader *r)
{
	char *v;
	int version;
	if (!header_line(r, VP_DB_MAGIC, &v))
		return false;
	if (sscanf(v, "%d", &version) != 1 || version != VP_DB_VERSION)
		return fail(r, "a value profile of another format version");
	char *name = NULL, *plugin = NULL;
	unsigned contexts, kept;
	if (!header_line(r, "profiler", &v) || !(name = strdup(v)) ||
	    !header_line(r, "plugin", &v) || !(plugin = strdup(v)) ||
	    !header_line(r, "contexts", &v) || sscanf(v, "%u", &contexts) != 1 ||
	    !header_line(r, "kept", &v) || sscanf(v, "%u", &kept) != 1) {
		free(name);
		free(plugin);
		return r->err[0] ? false : fail(r, "a bad header line");
	}
	r->p = vp_profile_new(name, plugin, contexts, kept);
	free(name);
	free(plugin);
	if (!r->p)
		return fail(r, "out of memory");
	/* Read back, the records are a sorted array, not a hash table. */
	free(r->p->stats);
	r->p->stats = NULL;
	r->p->capacity = 0;
	while (next_line(r)) {
		bool ok;
		if (!strncmp(r->text, "value ", 6))
			ok = parse_value(r);
		else if (!strncmp(r->text, "sampled ", 8))
			ok = parse_sampled(r);
		else if (!strncmp(r->text, "insn ", 5))
			ok = parse_insn(r);
		else if (!strncmp(r->text, "image ", 6))
			ok = parse_image(r);
		else if (!strcmp(r->text, "end"))
			return !next_line(r) || fail(r, "text after the end");
		else
			ok = fail(r, "an unknown line");
		if (!ok)
			return false;
	}
	return fail(r, "the profile is truncated (no 'end' line)");
}

struct vp_profile *vp_db_read(const char *path, char *err, size_t errlen)
{
	struct reader r = {.path = path, .err = err, .errlen = errlen};
	err[0] = '\0';
	if (!(r.f = fopen(path, "r"))) {
		snprintf(err, errlen, "cannot read '%s': %s", path, strerror(errno));
		return NULL;
	}
	bool ok = parse(&r);
	fclose(r.f);
	free(r.text);
	if (!ok) {
		vp_profile_free(r.p);
		return NULL;
	}
	return r.p;
}

/* pinball clean: what killed loggers left under a pinball's name goes; a finished pinball
 * keeps exactly the parts its P.meta lists. */
#include <stdio.h>
#include <stdlib.h>

#include "pinball_cli.h"

static int fail(const char *msg)
{
	fprintf(stderr, "pinball: error: %s\n", msg);
	return 1;
}

/* The parts P.meta lists, NULL-terminated; NULL when P.meta cannot be read (err). */
static const char **listed_parts(const char *basename, struct pinball_reader **r,
				 char err[PINBALL_ERR_MAX])
{
	*r = pinball_reader_open(basename, err);
	if (!*r)
		return NULL;
	size_t n = pinball_reader_part_count(*r);
	const char **keep = calloc(n + 1, sizeof *keep);
	if (!keep) {
		snprintf(err, PINBALL_ERR_MAX, "%s: out of memory", basename);
		return NULL;
	}
	for (size_t i = 0; i < n; i++)
		keep[i] = pinball_reader_part(*r, i)->name;
	return keep;
}

int cmd_clean(const char *basename)
{
	char err[PINBALL_ERR_MAX];
	struct pinball_leftovers l;
	if (pinball_leftovers(basename, &l, err) < 0)
		return fail(err);
	if (!l.has_meta && !l.parts && !l.tmp_live && !l.tmp_dead) {
		snprintf(err, sizeof err, "%s: no such pinball (no file is named %s.*)", basename,
			 basename);
		return fail(err);
	}
	struct pinball_reader *r = NULL;
	const char **keep = NULL;
	if (l.has_meta && !(keep = listed_parts(basename, &r, err))) {
		pinball_reader_close(r);
		return fail(err); /* a P.meta that cannot be read: nothing is taken for stale */
	}
	int removed = pinball_clean(basename, keep, err);
	free(keep);
	pinball_reader_close(r);
	if (removed < 0)
		return fail(err);
	printf("%s: %d file%s removed%s", basename, removed, removed == 1 ? "" : "s",
	       l.has_meta ? " (the finished pinball is kept)" : "");
	if (l.tmp_live)
		printf("; process %ld is still writing it", l.live_pid);
	printf("\n");
	return 0;
}

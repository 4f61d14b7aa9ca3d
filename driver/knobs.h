/* The drivers' command-line knobs: one table format, one parser, one help text, for the
 * knobs each driver has of its own and for those the logger and the replayer share
 * (shared_knobs.h). Driver main thread (glibc). */
#ifndef DRIVER_KNOBS_H
#define DRIVER_KNOBS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

enum knob_kind {
	KNOB_BOOL,   /* alone it means 1; an explicit 0 or 1 may follow */
	KNOB_STRING, /* takes a value */
};

struct knob {
	const char *name; /* "-log:fat" */
	enum knob_kind kind;
	size_t offset;	   /* of its field in the set's values (bool or const char *) */
	const char *value; /* KNOB_STRING: what the value is, for the help ("FILE") */
	const char *help;
};

/* A table of knobs and the structure their values go into. */
struct knob_set {
	const struct knob *knobs;
	size_t count;
	void *values;
};

#define KNOB_SET(table, values_ptr)                                                                \
	(struct knob_set)                                                                          \
	{                                                                                          \
		table, sizeof table / sizeof table[0], values_ptr                                  \
	}

/* If argv[*i] is a knob of one of the sets, or a controller knob (when control is given),
 * takes it and its value, advances *i past them and returns 1. Returns 0 and leaves *i
 * alone for an argument that is no knob of theirs; -1 with a one-line message in err for
 * a knob without its value or with a bad one. */
struct control_spec;
int knobs_take(const struct knob_set *sets, size_t nsets, struct control_spec *control, int argc,
	       char **argv, int *i, char *err, size_t errlen);

/* Whether arg asks for help (-h, -help, --help). */
bool knobs_help_wanted(const char *arg);

/* Lists the sets' knobs with their defaults (the values the sets hold now). */
void knobs_usage(FILE *to, const struct knob_set *sets, size_t nsets);

#endif

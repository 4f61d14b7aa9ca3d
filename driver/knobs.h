/* The drivers' command lines: one table format, one parser step, one help text, for the
 * knobs each driver has of its own, those the logger and the replayer share
 * (shared_knobs.h) and the controller's. Driver main thread (glibc). */
#ifndef DRIVER_KNOBS_H
#define DRIVER_KNOBS_H

#include <stdbool.h>
#include <stddef.h>

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

struct control_spec;

/* A driver's command line: its name and usage line for messages and help, its knob sets
 * and the controller spec its controller knobs go to. */
struct knobs_parser {
	const char *tool;  /* "logger" */
	const char *usage; /* "logger [knobs] [--] PROGRAM [ARGS...]" */
	const struct knob_set *sets;
	size_t nsets;
	struct control_spec *control;
};

enum knobs_step {
	KNOBS_TAKEN,	  /* a knob (and its value): *i is past them */
	KNOBS_POSITIONAL, /* not a knob ("--" or an argument without '-'): *i unchanged */
	KNOBS_HELP,	  /* -h, -help or --help: the help was printed on stdout */
	KNOBS_ERROR,	  /* an unknown knob, a missing or bad value: a line on stderr */
};

/* One step of a driver's loop over argv, at argv[*i]. */
enum knobs_step knobs_step(const struct knobs_parser *p, int argc, char **argv, int *i);

/* After the loop: completes the controller spec (default start, legacy knobs). 0, or -1
 * after printing the reason. */
int knobs_finish(const struct knobs_parser *p);

#endif

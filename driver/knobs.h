/* The drivers' command lines: one table format, one parser step, one help text, for the
 * knobs each driver has of its own, those the logger and the replayer share
 * (shared_knobs.h) and the controller's. Driver main thread (glibc). */
#ifndef DRIVER_KNOBS_H
#define DRIVER_KNOBS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum knob_kind {
	/* A bool. Alone it means 1 (Pin's convention: `-log -log:basename x -- app`), before
	 * another knob or `--`; otherwise the next argument is its value, which must be 0, 1,
	 * true, false, yes, no, on or off (any case): any other word is an error, never the
	 * program, which goes after `--`. */
	KNOB_BOOL,
	KNOB_STRING, /* a const char *: the next argument, which must not start with '-' */
	/* A KNOB_STRING naming a file or directory: knobs_finish makes it absolute (from the
	 * parser's base_dir), so that an app that changes its directory, and the processes
	 * it execs, still name the file the user meant. */
	KNOB_PATH,
	KNOB_UINT, /* a uint64_t: the next argument, decimal digits, at most `max` */
	KNOB_WORD, /* a const char *: the next argument whatever it is (the app's argv[0]) */
};

struct knob {
	const char *name; /* "-log:fat" */
	enum knob_kind kind;
	size_t offset;	   /* of its field in the set's values */
	const char *value; /* what the value is, for the help ("FILE", "N") */
	const char *help;
	uint64_t max; /* KNOB_UINT: the largest value accepted */
	/* KNOB_STRING, KNOB_WORD: what holds when the field is left NULL, for the help's
	 * default ("stderr"); NULL: "none". */
	const char *unset;
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
	const char *tool;    /* "logger" */
	const char *usage;   /* "logger [knobs] [--] PROGRAM [ARGS...]" */
	const char *operand; /* what follows the knobs, for messages: "program" */
	const struct knob_set *sets;
	size_t nsets;
	struct control_spec *control;
	/* Where relative paths are found (NULL: the working directory): the directory the run
	 * started in, for a process that follows an exec. Read by knobs_finish. */
	const char *const *base_dir;
};

/* The parser of a driver's local array of knob sets. */
#define KNOBS_PARSER(tool_, usage_, operand_, sets_, control_)                                     \
	(struct knobs_parser)                                                                      \
	{                                                                                          \
		.tool = tool_, .usage = usage_, .operand = operand_, .sets = sets_,                \
		.nsets = sizeof sets_ / sizeof sets_[0], .control = control_                       \
	}

enum knobs_step {
	KNOBS_TAKEN,	  /* a knob (and its value): *i is past them */
	KNOBS_POSITIONAL, /* not a knob ("--" or an argument without '-'): *i unchanged */
	KNOBS_HELP,	  /* -h, -help or --help: the help was printed on stdout */
	KNOBS_ERROR,	  /* an unknown knob, a missing or bad value: one line on stderr naming
			   * the knob */
};

/* One step of a driver's loop over argv, at argv[*i]. */
enum knobs_step knobs_step(const struct knobs_parser *p, int argc, char **argv, int *i);

/* After the loop: makes the paths absolute (KNOB_PATH, the controller's files) and
 * completes the controller spec (default start, legacy knobs). 0, or -1 after printing the
 * reason. */
int knobs_finish(const struct knobs_parser *p);

#endif

/* What the logger and the replayer both offer: the analysis tools, the controller (its
 * knobs are parsed by controller/), the JIT's statistics; and how both start them. Driver
 * main thread (glibc). */
#ifndef DRIVER_SHARED_KNOBS_H
#define DRIVER_SHARED_KNOBS_H

#include <stdbool.h>
#include <stddef.h>

#include "analysis.h"
#include "control_engine.h"
#include "control_spec.h"
#include "debugger.h"
#include "knobs.h"

struct shared_knobs {
	struct analysis_knobs analysis; /* -icount, -mix, -footprint and their report files */
	bool jit_stats;			/* -jit:stats */
	bool jit_perf_map;		/* -jit:perf_map */
	uint64_t jit_held_marks;	/* -jit:held_marks */
	const char *jit_persist_dir;	/* -jit:persist DIR: translations kept across runs */
	struct debugger_knobs debug;	/* -appdebug, -appdebug_port, -appdebug_file */
	struct control_spec *control;	/* -control, -controller_log, legacy region knobs */
	/* Set by the driver: the analysis tools get their region events from it (by
	 * analysis_event), not from the controller. */
	bool tools_follow_driver;
};

/* Defaults, with an empty controller spec; false when out of memory. */
bool shared_knobs_init(struct shared_knobs *k);

/* The table of the shared knobs, for a knobs_parser (whose control is k->control). */
struct knob_set shared_knob_set(struct shared_knobs *k);

/* After parsing: knobs that cannot go together. 0, or -1 with a one-line reason. */
int shared_knobs_check(const struct shared_knobs *k, char *err, size_t errlen);

/* Registers the analysis tools and, when anything needs it (a tool, a chain, a log, or
 * `engine_needed`), the controller's engine, whose events go to `handler` (may be NULL)
 * and then (unless k->tools_follow_driver) to the analysis tools. The -controller_log file is
 * truncated unless `append_log` (a process reached by following execve keeps the log of the first).
 * Returns 0, or -1 with a one-line reason in err. */
int shared_knobs_start(const struct shared_knobs *k, bool engine_needed, bool append_log,
		       control_handler handler, void *arg, char *err, size_t errlen);

#endif

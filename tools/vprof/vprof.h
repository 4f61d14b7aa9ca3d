/* Value profiling (-vprofile): a user's plug-in (pintrace_vprofiler.h) chooses values to
 * capture; the app's threads capture them inline inside the -control regions; a helper
 * thread hands them to the plug-in's process function and merges its samples into a
 * profile, written to a file (vprof_db.h) when the app exits or execs. For the logger's
 * runs and the replayer's replays. */
#ifndef TOOL_VPROF_H
#define TOOL_VPROF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "control_engine.h"

struct vprof_knobs {
	const char *plugin;   /* -vprofile: a path, or a bundled profiler's name */
	const char *output;   /* -vprofile_out (NULL: NAME.vprof, NAME the profiler's) */
	uint64_t values_kept; /* -vprofile_values: distinct samples kept per instruction */
	/* -vprofile_sample: each thread's trace buffers profiled, one in this many (its
	 * first, then every Nth): bursts of consecutive executions, as a sampling profiler
	 * takes them; 1 profiles every execution. */
	uint64_t sample;
	/* -vprofile:image, set when following execve: this process image's number in its
	 * process (0: the first image of the process the user started, which writes FILE;
	 * image k of process PID writes FILE.PID.k). */
	uint64_t image;
};

/* Enough for any hotlist; more makes a busy profile's tables outgrow the caches. */
#define VPROF_DEFAULT_VALUES_KEPT 256

/* Driver thread, before the app starts: loads and checks the plug-in, compiles its
 * specification, creates the output, starts the helper thread and registers the JIT
 * client. 0, or -1 with a one-line reason in err. */
int vprof_register(const struct vprof_knobs *k, char *err, size_t errlen);

/* App thread (TLS-free): a controller event (a region's start or stop). */
void vprof_event(const struct control_event_info *ev);

#endif

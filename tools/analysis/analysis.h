/* The analysis tools a driver (logger, replayer) offers: -icount, -mix, -footprint,
 * -debugtrace, -bbv, -vprofile, each
 * honouring the controller's regions. One place to set them up and to feed them events. */
#ifndef TOOL_ANALYSIS_H
#define TOOL_ANALYSIS_H

#include <stdbool.h>
#include <stddef.h>

#include "control_engine.h"
#include "vprof.h"

struct analysis_knobs {
	bool icount, mix, footprint;
	const char *oicount, *omix, *ofootprint; /* report files, NULL: stderr */
	bool debugtrace;
	const char *odebugtrace; /* the trace file (the drivers' default: debugtrace.out) */
	bool bbv;
	const char *obbv;	     /* the vectors' file (the drivers' default: bbv.bb) */
	uint64_t bbv_interval;	     /* instructions */
	struct vprof_knobs vprofile; /* -vprofile (plugin NULL: off), -vprofile_out... */
};

static inline bool analysis_wanted(const struct analysis_knobs *k)
{
	return k->icount || k->mix || k->footprint || k->debugtrace || k->bbv || k->vprofile.plugin;
}

/* Driver thread, before the app starts: registers the selected tools, with their report
 * files created now (and resolved against the current directory, which the app may
 * change). Returns 0, or -1 with a one-line reason in err. */
int analysis_register(const struct analysis_knobs *k, char *err, size_t errlen);

/* A file for a report: created (truncated when asked) and its absolute path returned
 * (malloc'd), or NULL with the reason in err. */
char *analysis_output_path(const char *file, bool truncate, char *err, size_t errlen);

/* App thread (TLS-free): a controller event for every registered tool. */
void analysis_event(const struct control_event_info *ev);

#endif

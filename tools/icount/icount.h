/* The -icount analysis tool: instructions executed per thread inside the controller's
 * regions (the whole run without -control), a REP string instruction counting once per
 * iteration. Start and stop apply to the triggering thread when they arrive, to every
 * thread when broadcast (the seed's policy for analysis tools). Output at exit:
 *   icount tid=<n> <count>      one line per thread
 *   icount total <count>
 * on the runtime's stderr, or in a file. */
#ifndef TOOL_ICOUNT_H
#define TOOL_ICOUNT_H

#include "control_engine.h"

/* output_path: absolute path of the -oicount file, or NULL for stderr. Call before the
 * app starts. */
void icount_tool_register(const char *output_path);

/* The tool's reaction to a controller event (the driver forwards events to it). */
void icount_tool_event(const struct control_event_info *ev);

#endif

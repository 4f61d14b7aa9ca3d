/* The -footprint analysis tool: the distinct 64-byte lines and 4 KiB pages that loads,
 * stores and code touched inside the controller's regions (the whole run without
 * -control), for the whole process. Loads and stores are marked inline before each
 * instruction, in a bitmap a thread outside its region does not write; REP string
 * instructions mark the range their iterations cover; code counts the lines of the
 * instructions the threads ran inside their regions. Not counted: gathers/scatters,
 * prefetches, cache flushes, and the kernel's accesses on behalf of syscalls.
 * Output at exit, on the runtime's stderr or in a file:
 *   footprint loads lines <n> pages <n>
 *   footprint stores lines <n> pages <n>
 *   footprint code lines <n> pages <n>
 *   footprint total lines <n> pages <n>      (the union of the three) */
#ifndef TOOL_FOOTPRINT_H
#define TOOL_FOOTPRINT_H

#include <stddef.h>

#include "control_engine.h"

/* output_path: absolute path of the -ofootprint file, or NULL. Before the app starts;
 * returns 0, or -1 with the reason in err. */
int footprint_tool_register(const char *output_path, char *err, size_t errlen);

/* After block_counts_event has seen the event (analysis_event keeps that order). */
void footprint_tool_event(const struct control_event_info *ev);

#endif

/* Which tools analysis_register set up (read by analysis_event on app threads). */
#ifndef TOOL_ANALYSIS_INTERNAL_H
#define TOOL_ANALYSIS_INTERNAL_H

#include <stdbool.h>

struct analysis_active {
	bool icount, mix, footprint, debugtrace, vprofile;
	bool block_counts; /* the block counts run for -bbv */
};
extern struct analysis_active analysis_active;

#endif

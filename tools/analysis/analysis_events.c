/* Feeding controller events to the analysis tools (app threads, TLS-free). */
#include "analysis.h"
#include "analysis_internal.h"
#include "block_counts.h"
#include "debugtrace.h"
#include "footprint.h"
#include "icount.h"
#include "vprof.h"

struct analysis_active analysis_active;

void analysis_event(const struct control_event_info *ev)
{
	if (analysis_active.icount)
		icount_tool_event(ev);
	/* -mix and -footprint share the block counts: one transition for both. */
	if (analysis_active.mix || analysis_active.footprint || analysis_active.block_counts)
		block_counts_event(ev);
	if (analysis_active.footprint)
		footprint_tool_event(ev);
	if (analysis_active.debugtrace)
		debugtrace_event(ev);
	if (analysis_active.vprofile)
		vprof_event(ev);
}

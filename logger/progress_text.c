/* What the logger's progress line says. */
#include "progress_text.h"

#include <stdio.h>

#include "recorder.h"
#include "writer_thread.h"

void logger_progress_text(char *buf, size_t cap, const struct progress_sample *s)
{
	uint32_t region;
	bool in_region;
	recorder_status(&region, &in_region);
	char count[16], bytes[32];
	progress_count(s->instructions, count, sizeof count);
	pinball_human_size(writer_thread_bytes(), bytes, sizeof bytes);
	if (in_region)
		snprintf(buf, cap,
			 "logger: recording region %u: %s instructions (%.0f MIPS), %s written",
			 region, count, s->mips, bytes);
	else
		snprintf(buf, cap,
			 "logger: outside a region: %s instructions (%.0f MIPS), %s written", count,
			 s->mips, bytes);
}

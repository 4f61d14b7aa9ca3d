/* The replayer's trace export (-trace FORMAT -o FILE): its knobs and its start (driver
 * main thread, glibc). */
#ifndef REPLAYER_TRACE_KNOBS_H
#define REPLAYER_TRACE_KNOBS_H

#include <stddef.h>
#include <stdint.h>

#include "knobs.h"
#include "replay_input.h"

struct trace_knobs {
	const char *format; /* -trace: "champsim", or "feed" (the replay library's stream) */
	const char *output; /* -o */
	uint64_t xz_preset; /* -trace:xz_preset */
	bool regs, memory;  /* -trace:regs, -trace:memory (feed) */
};

void trace_knobs_init(struct trace_knobs *k);
struct knob_set trace_knob_set(struct trace_knobs *k);

/* After parsing: -trace and -o go together, and the format is one we write. 0, or -1 with
 * the reason in err. */
int trace_knobs_check(const struct trace_knobs *k, char *err, size_t errlen);

/* Starts the export for the pinball's threads, if asked for. 0, or -1 with the reason. */
int trace_knobs_start(const struct trace_knobs *k, const struct replay_input *in, char *err,
		      size_t errlen);

#endif

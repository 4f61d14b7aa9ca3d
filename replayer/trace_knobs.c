#include "trace_knobs.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "champsim.h"

static const struct knob trace_knobs[] = {
    {"-trace", KNOB_STRING, offsetof(struct trace_knobs, format), "FORMAT",
     "write a trace of the replayed instructions: champsim (ChampSim's input_instr records)", 0},
    {"-o", KNOB_STRING, offsetof(struct trace_knobs, output), "FILE",
     "the -trace file (.xz: xz, .gz: gzip, else raw; one per thread with .tidN)", 0},
    {"-trace:xz_preset", KNOB_UINT, offsetof(struct trace_knobs, xz_preset), "N",
     "the xz or gzip preset of -trace (xz 0-9, gzip 1-9)", 9},
};

void trace_knobs_init(struct trace_knobs *k)
{
	*k = (struct trace_knobs){.xz_preset = 1};
}

struct knob_set trace_knob_set(struct trace_knobs *k)
{
	return KNOB_SET(trace_knobs, k);
}

int trace_knobs_check(const struct trace_knobs *k, char *err, size_t errlen)
{
	if (k->format && strcmp(k->format, "champsim")) {
		snprintf(err, errlen, "knob '-trace' takes champsim, not '%s'", k->format);
		return -1;
	}
	if (!k->format != !k->output) {
		snprintf(err, errlen,
			 k->format ? "-trace needs an output file (-o FILE)"
				   : "-o needs a trace format (-trace champsim)");
		return -1;
	}
	return 0;
}

int trace_knobs_start(const struct trace_knobs *k, const struct replay_input *in, char *err,
		      size_t errlen)
{
	if (!k->format)
		return 0;
	uint32_t *tids = calloc(in->nthreads, sizeof *tids);
	if (!tids) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	for (size_t i = 0; i < in->nthreads; i++)
		tids[i] = in->threads[i].tid;
	int r = champsim_trace_start(k->output, tids, in->nthreads, (int)k->xz_preset, err, errlen);
	free(tids);
	return r;
}

#include "trace_knobs.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sys/mman.h>

#include "champsim.h"
#include "feed.h"

static const struct knob trace_knobs[] = {
    {"-trace", KNOB_STRING, offsetof(struct trace_knobs, format), "FORMAT",
     "write a trace of the replayed instructions: champsim (ChampSim's input_instr records) "
     "or feed (the replay library's)",
     0, NULL},
    {"-o", KNOB_STRING, offsetof(struct trace_knobs, output), "FILE",
     "the -trace file (.xz: xz, .gz: gzip, else raw; one per thread with .tidN)", 0, NULL},
    {"-trace:xz_preset", KNOB_UINT, offsetof(struct trace_knobs, xz_preset), "N",
     "the xz or gzip preset of -trace (xz 0-9, gzip 1-9)", 9, NULL},
    {"-trace:regs", KNOB_BOOL, offsetof(struct trace_knobs, regs), NULL,
     "-trace feed: every instruction's registers (the replay library asks for them)", 0, NULL},
    {"-trace:memory", KNOB_BOOL, offsetof(struct trace_knobs, memory), NULL,
     "-trace feed: the region's memory at its start", 0, NULL},
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
	if (k->format && strcmp(k->format, "champsim") && strcmp(k->format, "feed")) {
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

/* Readable memory in chunks whose lengths fit the feed's 32-bit fields. */
enum { CHUNK = 1 << 26 };

static int start_feed(const struct trace_knobs *k, const struct replay_input *in, char *err,
		      size_t errlen)
{
	struct feed_thread *threads = calloc(in->nthreads, sizeof *threads);
	size_t nranges = 0, cap = 0;
	struct feed_range *ranges = NULL;
	if (!threads) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	for (size_t i = 0; i < in->nthreads; i++) {
		const struct replay_thread *t = &in->threads[i];
		threads[i] = (struct feed_thread){
		    .tid = t->tid, .at_start = t->at_start, .in_syscall = t->start_in_syscall};
		if (!t->at_start)
			continue;
		memcpy(threads[i].gpr, t->start.gpr, sizeof threads[i].gpr);
		threads[i].rip = t->start.rip;
		threads[i].rflags = t->start.rflags;
		threads[i].fs_base = t->start.fs_base;
	}
	for (size_t i = 0; k->memory && i < in->nranges; i++) {
		const struct replay_range *r = &in->ranges[i];
		if (r->kind != RANGE_RECORDED || !(r->prot & PROT_READ))
			continue;
		for (uint64_t a = r->start; a < r->end; a += CHUNK) {
			if (nranges == cap) {
				cap = cap ? 2 * cap : 64;
				struct feed_range *m = realloc(ranges, cap * sizeof *m);
				if (!m) {
					snprintf(err, errlen, "out of memory");
					return -1;
				}
				ranges = m;
			}
			uint64_t len = r->end - a < CHUNK ? r->end - a : CHUNK;
			ranges[nranges++] = (struct feed_range){a, r->prot, len, (const void *)a};
		}
	}
	int rc = feed_start(k->output, k->regs, threads, in->nthreads, k->memory ? ranges : NULL,
			    nranges, err, errlen);
	free(threads);
	free(ranges);
	return rc;
}

int trace_knobs_start(const struct trace_knobs *k, const struct replay_input *in, char *err,
		      size_t errlen)
{
	if (!k->format)
		return 0;
	if (!strcmp(k->format, "feed"))
		return start_feed(k, in, err, errlen);
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

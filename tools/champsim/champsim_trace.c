/* The ChampSim sink of the capture: records per thread, staged and written by the helper. */
#include "champsim.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "champsim_record.h"
#include "jit_messages.h"
#include "trace_output.h"

enum { STAGE_RECORDS = 1 << 14, MAX_TIDS = 1024 };

struct thread_trace {
	struct trace_output *out;
	size_t staged;
	uint8_t stage[STAGE_RECORDS * CHAMPSIM_RECORD_BYTES];
};

static struct thread_trace *by_tid[MAX_TIDS];

static void flush(struct thread_trace *t)
{
	trace_output_must_write(t->out, t->stage, t->staged * CHAMPSIM_RECORD_BYTES, "-trace");
	t->staged = 0;
}

static void exec(const struct capture_exec *x, void *arg)
{
	(void)arg;
	struct thread_trace *t = x->tid < MAX_TIDS ? by_tid[x->tid] : NULL;
	if (!t)
		return;
	struct capture_insn *in = x->insn;
	if (!in->sink_ready) {
		champsim_head_of(in, in->sink_data);
		in->sink_ready = 1;
	}
	champsim_record_from(x, in->sink_data, t->stage + t->staged * CHAMPSIM_RECORD_BYTES);
	if (++t->staged == STAGE_RECORDS)
		flush(t);
}

static void finish(void *arg)
{
	(void)arg;
	for (size_t i = 0; i < MAX_TIDS; i++) {
		struct thread_trace *t = by_tid[i];
		if (!t)
			continue;
		char err[512];
		flush(t);
		if (trace_output_close(t->out, err, sizeof err))
			jit_fatal("-trace: %s", err);
		free(t);
		by_tid[i] = NULL;
	}
}

char *champsim_thread_path(const char *path, uint32_t tid, size_t ntids)
{
	char tag[16] = "";
	if (ntids > 1)
		snprintf(tag, sizeof tag, ".tid%u", tid);
	return trace_output_tagged_path(path, tag);
}

int champsim_trace_start(const char *path, const uint32_t *tids, size_t ntids, int level, char *err,
			 size_t errlen)
{
	for (size_t i = 0; i < ntids; i++) {
		if (tids[i] >= MAX_TIDS) {
			snprintf(err, errlen, "-trace: thread %u is beyond the limit of %d",
				 tids[i], MAX_TIDS);
			return -1;
		}
		char *file = champsim_thread_path(path, tids[i], ntids);
		struct thread_trace *t = calloc(1, sizeof *t);
		if (!file || !t || !(t->out = trace_output_open(file, level, err, errlen))) {
			if (!file || !t)
				snprintf(err, errlen, "out of memory");
			free(file);
			free(t);
			return -1;
		}
		free(file);
		by_tid[tids[i]] = t;
	}
	static const struct capture_sink sink = {exec, finish, NULL};
	return capture_start(&sink, false, err, errlen);
}

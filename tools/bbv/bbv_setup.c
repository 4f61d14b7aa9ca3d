/* Starting -bbv (driver thread, glibc): the helper that writes each thread's file. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bbv.h"
#include "bbv_internal.h"
#include "jit_messages.h"
#include "trace_output.h"

enum { MAX_TIDS = 1024 };

static const char *base;
static struct trace_output *outputs[MAX_TIDS];

static struct trace_output *output_of(uint32_t tid)
{
	if (tid >= MAX_TIDS)
		return NULL;
	if (!outputs[tid]) {
		char path[4096], err[512];
		if (tid)
			snprintf(path, sizeof path, "%s.tid%u", base, tid);
		else
			snprintf(path, sizeof path, "%s", base);
		if (!(outputs[tid] = trace_output_open(path, -1, err, sizeof err)))
			jit_fatal("-bbv: %s", err);
	}
	return outputs[tid];
}

static void consume(const struct handoff_buffer *b, void *arg)
{
	(void)arg;
	struct trace_output *o = output_of(b->tid);
	if (o)
		trace_output_must_write(o, b->words, b->used, "-bbv");
}

static void finish(void *arg)
{
	(void)arg;
	char err[512];
	for (uint32_t tid = 0; tid < MAX_TIDS; tid++)
		if (outputs[tid] && trace_output_close(outputs[tid], err, sizeof err))
			jit_fatal("-bbv: %s", err);
}

int bbv_register(const char *path, uint64_t interval, char *err, size_t errlen)
{
	/* Thread 0's file is made now, so that an unwritable path is an error at once. */
	base = path;
	if (!(outputs[0] = trace_output_open(path, -1, err, errlen)))
		return -1;
	static const struct handoff_ops ops = {consume, finish, NULL};
	struct handoff *h = handoff_start(&ops, err, errlen);
	return h ? bbv_client_register(h, interval, err, errlen) : -1;
}

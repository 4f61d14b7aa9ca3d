/* Starting -debugtrace (driver thread, glibc): the output and the helper that writes it. */
#include <stdio.h>

#include "debugtrace.h"
#include "debugtrace_internal.h"
#include "jit_messages.h"
#include "trace_output.h"

static struct trace_output *output;

static void consume(const struct handoff_buffer *b, void *arg)
{
	(void)arg;
	trace_output_must_write(output, b->words, b->used, "-debugtrace");
}

static void finish(void *arg)
{
	(void)arg;
	char err[512];
	if (trace_output_close(output, err, sizeof err))
		jit_fatal("-debugtrace: %s", err);
}

int debugtrace_register(const char *path, char *err, size_t errlen)
{
	if (!(output = trace_output_open(path, -1, err, errlen)))
		return -1;
	static const struct handoff_ops ops = {consume, finish, NULL};
	struct handoff *h = handoff_start(&ops, err, errlen);
	return h ? debugtrace_client_register(h, err, errlen) : -1;
}

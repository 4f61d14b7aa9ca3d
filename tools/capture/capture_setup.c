/* Starting the capture (driver thread, glibc): the helper that decodes, and the client. */
#include "capture_internal.h"

static struct capture_sink sink;

static void consume(const struct handoff_buffer *b, void *arg)
{
	(void)arg;
	capture_decode(b, &sink);
}

static void finish(void *arg)
{
	(void)arg;
	capture_decode_end(&sink);
	sink.finish(sink.arg);
}

int capture_start(const struct capture_sink *s, bool gprs, char *err, size_t errlen)
{
	sink = *s;
	static const struct handoff_ops ops = {consume, finish, NULL};
	struct handoff *h = handoff_start(&ops, err, errlen);
	return h ? capture_client_register(h, gprs, err, errlen) : -1;
}

#include "trace_codec.h"

#include <lzma.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

enum kind { RAW, XZ, GZ };
enum { CHUNK = 1 << 18 };

struct trace_codec {
	enum kind kind;
	trace_codec_sink out;
	void *arg;
	lzma_stream xz;
	z_stream gz;
	uint8_t buf[CHUNK];
};

static bool ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);
	return n >= m && !strcmp(s + n - m, suffix);
}

struct trace_codec *trace_codec_new(const char *path, int level, trace_codec_sink out, void *arg,
				    char *err, size_t errlen)
{
	struct trace_codec *c = calloc(1, sizeof *c);
	if (!c) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	c->out = out;
	c->arg = arg;
	c->kind = ends_with(path, ".xz") ? XZ : ends_with(path, ".gz") ? GZ : RAW;
	bool ok = true;
	if (c->kind == XZ) {
		c->xz = (lzma_stream)LZMA_STREAM_INIT;
		ok = lzma_easy_encoder(&c->xz, level < 0 ? 1 : (uint32_t)level, LZMA_CHECK_CRC64) ==
		     LZMA_OK;
	} else if (c->kind == GZ) {
		ok = deflateInit2(&c->gz, level < 0 ? 1 : level, Z_DEFLATED, 15 + 16, 8,
				  Z_DEFAULT_STRATEGY) == Z_OK;
	}
	if (!ok) {
		snprintf(err, errlen, "cannot set the compressor up for '%s'", path);
		free(c);
		return NULL;
	}
	return c;
}

/* Runs the compressor over the input (finishing: to the stream's end). */
static bool xz_run(struct trace_codec *c, const void *data, size_t len, bool finishing)
{
	c->xz.next_in = data;
	c->xz.avail_in = len;
	for (;;) {
		c->xz.next_out = c->buf;
		c->xz.avail_out = CHUNK;
		lzma_ret r = lzma_code(&c->xz, finishing ? LZMA_FINISH : LZMA_RUN);
		if (r != LZMA_OK && r != LZMA_STREAM_END)
			return false;
		size_t n = CHUNK - c->xz.avail_out;
		if (n && !c->out(c->buf, n, c->arg))
			return false;
		if (finishing ? r == LZMA_STREAM_END : c->xz.avail_in == 0 && c->xz.avail_out)
			return true;
	}
}

static bool gz_run(struct trace_codec *c, const void *data, size_t len, bool finishing)
{
	c->gz.next_in = (Bytef *)data;
	c->gz.avail_in = (uInt)len;
	for (;;) {
		c->gz.next_out = c->buf;
		c->gz.avail_out = CHUNK;
		int r = deflate(&c->gz, finishing ? Z_FINISH : Z_NO_FLUSH);
		if (r == Z_STREAM_ERROR)
			return false;
		size_t n = CHUNK - c->gz.avail_out;
		if (n && !c->out(c->buf, n, c->arg))
			return false;
		if (finishing ? r == Z_STREAM_END : c->gz.avail_in == 0 && c->gz.avail_out)
			return true;
	}
}

bool trace_codec_write(struct trace_codec *c, const void *data, size_t len)
{
	switch (c->kind) {
	case XZ:
		return xz_run(c, data, len, false);
	case GZ:
		/* zlib takes at most 4 GiB at a time; callers write far less. */
		return gz_run(c, data, len, false);
	default:
		return c->out(data, len, c->arg);
	}
}

bool trace_codec_end(struct trace_codec *c)
{
	bool ok = true;
	if (c->kind == XZ) {
		ok = xz_run(c, NULL, 0, true);
		lzma_end(&c->xz);
	} else if (c->kind == GZ) {
		ok = gz_run(c, NULL, 0, true);
		deflateEnd(&c->gz);
	}
	free(c);
	return ok;
}

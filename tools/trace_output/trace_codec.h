/* The compression of a trace output: none, xz (liblzma) or gzip (zlib), chosen by the
 * file name's ending. */
#ifndef TOOL_TRACE_CODEC_H
#define TOOL_TRACE_CODEC_H

#include <stdbool.h>
#include <stddef.h>

struct trace_codec;

/* What the codec produced: written by the caller (false stops the codec). */
typedef bool (*trace_codec_sink)(const void *data, size_t len, void *arg);

/* NULL with the reason in err. */
struct trace_codec *trace_codec_new(const char *path, int level, trace_codec_sink out, void *arg,
				    char *err, size_t errlen);
bool trace_codec_write(struct trace_codec *c, const void *data, size_t len);
/* Ends the stream; frees c. */
bool trace_codec_end(struct trace_codec *c);

#endif

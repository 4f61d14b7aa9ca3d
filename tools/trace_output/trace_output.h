/* An output file of a trace (helper threads; glibc): compressed with xz when its name ends
 * in ".xz", gzip for ".gz", raw otherwise; written under no name until it is complete, so
 * an interrupted run leaves nothing that looks like a trace. A path that names a device or
 * a pipe (/dev/null, /dev/stdout) is written as it is. */
#ifndef TOOL_TRACE_OUTPUT_H
#define TOOL_TRACE_OUTPUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct trace_output;

/* Opens an unnamed file in path's directory (which must be writable). NULL with a one-line
 * reason in err. `level`: the compression preset (xz 0-9, gzip 1-9; -1: the format's
 * default). */
struct trace_output *trace_output_open(const char *path, int level, char *err, size_t errlen);

/* Appends len bytes (compressing them). False on a write or compression error, which is
 * kept for trace_output_close to report. */
bool trace_output_write(struct trace_output *o, const void *data, size_t len);

/* trace_output_write, or the process ends with "<tool>: error: <who>: cannot write 'PATH':
 * <why>" (exit 1): what a helper thread does when its output fails. */
void trace_output_must_write(struct trace_output *o, const void *data, size_t len, const char *who);

/* Ends the stream and gives the file its name (replacing a file of that name). 0, or -1
 * with the reason in err (nothing is named then). Frees o. */
int trace_output_close(struct trace_output *o, char *err, size_t errlen);

/* path with `tag` (".tid1", ".pid42") before its compressing ending, if any (trace.xz:
 * trace.tid1.xz), malloc'd; NULL when out of memory. */
char *trace_output_tagged_path(const char *path, const char *tag);

/* Bytes given to trace_output_write, and bytes written to the file so far. */
uint64_t trace_output_bytes_in(const struct trace_output *o);
uint64_t trace_output_bytes_out(const struct trace_output *o);

#endif

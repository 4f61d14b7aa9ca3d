/* replayer -trace champsim: ChampSim traces of the replayed region, one file per thread
 * (driver side: set-up; the records are made and written on a helper thread). */
#ifndef TOOL_CHAMPSIM_H
#define TOOL_CHAMPSIM_H

#include <stddef.h>
#include <stdint.h>

/* Before the app starts. One file per thread of `tids`: `path` itself for a single
 * thread, else path with ".tid<N>" before a ".xz" or ".gz" ending (trace.xz:
 * trace.tid0.xz, trace.tid1.xz; trace: trace.tid0, ...). Compressed by the ending (xz
 * preset `level`, -1: 1). The files are created now (so an unwritable path is an error
 * before the replay) and named when the replay ends well. 0, or -1 with the reason. */
int champsim_trace_start(const char *path, const uint32_t *tids, size_t ntids, int level, char *err,
			 size_t errlen);

/* The name of thread tid's file (malloc'd), as above. */
char *champsim_thread_path(const char *path, uint32_t tid, size_t ntids);

#endif

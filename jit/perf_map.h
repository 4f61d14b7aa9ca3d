/* -jit:perf_map: /tmp/perf-PID.map, where perf (report, annotate, top) finds names for
 * code that no ELF file describes: one line per translation, "START SIZE NAME" in hex, the
 * name the app address of its first instruction and, when that code came from a file, the
 * file's name and offset (`app 0x7f01c2a3b4c0 libsqlite3.so.0+0x2a4c0`). So the samples
 * perf takes in the code cache are told apart by the app code they run. */
#ifndef JIT_PERF_MAP_H
#define JIT_PERF_MAP_H

#include "fragment.h"

/* Creates the process's file (empty), when -jit:perf_map asks for it. */
void perf_map_open(void);

/* A line for a new translation (under the runtime lock). */
void perf_map_translated(const struct fragment *f);

/* In a forked child, which runs its parent's translations under another pid: its own file,
 * beginning with its parent's lines. */
void perf_map_after_fork(void);

#endif

/* -bbv: basic-block vectors for SimPoint. Every `interval` instructions a thread runs, it
 * writes one line in SimPoint's .bb format,
 *
 *   T:<block>:<instructions> :<block>:<instructions> ...
 *
 * the instructions each basic block contributed inside the regions in that interval
 * (blocks as -mix knows them: the same code is the same block; a REP string instruction
 * is a block of its own, counted per iteration). Intervals end at the first block start
 * at or past the interval; an interval with nothing inside a region writes no line.
 * Thread 0's vectors go to the file, thread N's to <file>.tid<N>. Runs on app threads
 * (TLS-free); a helper thread writes the files. */
#ifndef TOOL_BBV_H
#define TOOL_BBV_H

#include <stddef.h>
#include <stdint.h>

/* Driver thread, before the app starts. 0, or -1 with a one-line reason in err. */
int bbv_register(const char *path, uint64_t interval, char *err, size_t errlen);

#endif

/* The -icount analysis tool: instructions executed per thread, a REP string instruction
 * counting once per iteration. Output at exit, one line a thread and a total:
 *   icount tid=<n> <count>
 *   icount total <count>
 * to the runtime's stderr, or to a file. */
#ifndef TOOL_ICOUNT_H
#define TOOL_ICOUNT_H

/* output_path: absolute path of the -oicount file, or NULL for stderr. Call before the app
 * starts. Returns 0, or -1 when no counter slot is left. */
int icount_tool_register(const char *output_path);

#endif

/* -debugtrace: a human-readable trace of every instruction executed inside the regions
 * (the logger's recorded ones, or -control's), one line each:
 *
 *   <tid> <icount> 0x<pc>: <disassembly>[ | R 0x<addr>/<size>=<value>]...
 *                                       [ | W 0x<addr>/<size>=<value>]...[ | <reg>=<value>...]
 *
 * icount is the thread's count before the instruction (as -control counts); R are the
 * memory operands read with the values read, W those written with the values written,
 * then the registers the instruction wrote with their new values (general-purpose ones by
 * their 64-bit names, rflags, xmm registers by their low 128 bits). A REP string
 * instruction is one line, with its first iteration's operands. Runs on app threads
 * (TLS-free); the lines go to a helper thread that writes them. */
#ifndef TOOL_DEBUGTRACE_H
#define TOOL_DEBUGTRACE_H

#include <stddef.h>

#include "control_engine.h"

/* Driver thread, before the app starts: the output (compressed by its name: .gz, .xz) and
 * the client. 0, or -1 with a one-line reason. */
int debugtrace_register(const char *path, char *err, size_t errlen);

/* A controller event (forwarded by the driver, on the triggering thread). */
void debugtrace_event(const struct control_event_info *ev);

#endif

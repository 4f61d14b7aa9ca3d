/* Where an analysis tool's report goes at exit: the file its -o knob named (created anew),
 * or the runtime's stderr. App-thread code, TLS-free. */
#ifndef TOOL_REPORT_H
#define TOOL_REPORT_H

/* The descriptor to write to, or -1 after a one-line message saying why. */
int report_open(const char *path);
void report_close(int fd, const char *path);

#endif

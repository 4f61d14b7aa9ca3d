/* Where an analysis tool's report goes at exit: the file its -o knob named (created anew),
 * or the runtime's stderr. App-thread code, TLS-free. */
#ifndef TOOL_REPORT_H
#define TOOL_REPORT_H

/* Writes the report: opens the file (or takes stderr), calls write_report with the
 * descriptor, closes. A file that cannot be written gets a one-line message instead. */
void report_write(const char *path, void (*write_report)(int fd));

#endif

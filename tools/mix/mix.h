/* The -mix analysis tool: instructions executed inside the controller's regions (the whole
 * run without -control), as histograms by ISA extension, category (XED's names) and
 * mnemonic, per thread and in total. A REP string instruction counts once per iteration
 * (as -icount counts it) under XED's iclass name, e.g. REP_MOVSB. Output at exit, on the
 * runtime's stderr or in a file, one line per figure, largest first:
 *   mix tid=<n> instructions <count>
 *   mix tid=<n> extension|category|mnemonic <name> <count>
 *   mix total instructions <count>
 *   mix total extension|category|mnemonic <name> <count> */
#ifndef TOOL_MIX_H
#define TOOL_MIX_H

#include <stddef.h>

/* output_path: absolute path of the -omix file, or NULL. Before the app starts; returns 0,
 * or -1 with the reason in err. */
int mix_tool_register(const char *output_path, char *err, size_t errlen);

#endif

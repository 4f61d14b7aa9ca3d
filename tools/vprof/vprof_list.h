/* `pinball vplist`: a profile's hotlists, instruction by instruction in order of executions,
 * each value with its count and its share of the instruction's samples, formatted by the
 * plug-in that made the profile; with source lines where the images have debug
 * information. Ordinary C (glibc). */
#ifndef TOOL_VPROF_LIST_H
#define TOOL_VPROF_LIST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

struct vp_list_options {
	unsigned top;	    /* values shown per instruction */
	size_t limit;	    /* instructions shown (0: all) */
	bool all;	    /* also the instructions without samples */
	bool contexts;	    /* a row per (context, value), not per value */
	const char *plugin; /* the plug-in that formats the values (NULL: the profile's own) */
};

/* Prints the hotlists of the profile `file` on out. 0, or -1 with a one-line reason (a bad
 * profile, a plug-in that cannot be loaded). A profile whose own plug-in is gone is printed
 * in hexadecimal, after a warning on stderr. */
int vp_list(const char *file, const struct vp_list_options *o, FILE *out, char *err, size_t errlen);

#endif

/* Source lines for profiled instructions: their images (the profile's file mappings) and
 * the debug information in them, read by addr2line (binutils). Ordinary C (glibc). */
#ifndef TOOL_VPROF_SOURCE_H
#define TOOL_VPROF_SOURCE_H

#include <stddef.h>
#include <stdint.h>

#include "vprof_profile.h"

struct vp_where {
	char *function; /* NULL: unknown */
	char *line;	/* "file.c:12"; NULL: unknown */
};

/* Where each of the n pcs is (where[i] for pcs[i]), as far as the images' debug
 * information says; unknown without it, or when addr2line cannot run. Free with
 * vp_where_free. */
void vp_source_lookup(const struct vp_profile *p, const uint64_t *pcs, size_t n,
		      struct vp_where *where);
void vp_where_free(struct vp_where *where, size_t n);

#endif

/* The profile file (docs/vprofile-format.md): a versioned text file, one record a line,
 * written once the profile is complete and read back by `pinball vplist`. The same profile
 * always gives the same bytes. Ordinary C (glibc). */
#ifndef TOOL_VPROF_DB_H
#define TOOL_VPROF_DB_H

#include <stddef.h>

#include "vprof_profile.h"

#define VP_DB_MAGIC "pintrace-vprofile"
#define VP_DB_VERSION 1

/* Writes p (sorted: vp_profile_sort) to path, through a temporary file renamed at the end
 * (a reader never sees half a profile). 0, or -1 with a one-line reason. */
int vp_db_write(const char *path, const struct vp_profile *p, char *err, size_t errlen);

/* Reads the profile at path (sorted as written). NULL with a one-line reason naming the
 * file and line. */
struct vp_profile *vp_db_read(const char *path, char *err, size_t errlen);

#endif

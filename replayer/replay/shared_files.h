/* The files a recording mapped MAP_SHARED, held by a replay as memory files: every view of
 * one file maps the same memory file at its offset, so that a write through one view shows
 * through the others as the kernel's page cache shows it (the file itself is not touched).
 * A file is known by its path as the recording named it (" (deleted)" dropped). TLS-free:
 * from the driver before the app starts, and under the runtime lock once it runs. */
#ifndef REPLAYER_SHARED_FILES_H
#define REPLAYER_SHARED_FILES_H

#include <stdint.h>

/* The memory file standing for path (made on first use: sparse, larger than any view
 * reaches), or -1 when none can be made: the view is then a private copy, as before. */
int shared_file_memfd(const char *path);

/* Whether mmap flags make a shared mapping (MAP_SHARED or MAP_SHARED_VALIDATE). */
static inline int shared_file_flags(uint64_t flags)
{
	return (flags & 3) == 1 || (flags & 3) == 3;
}

#endif

/* App memory a syscall changes outside its buffers, through the kernel's page cache or an
 * advice: a replay holds copies of the app's pages, which the kernel does not keep in step,
 * so the recorder records those pages again, as the syscall's writes.
 * - a file written or cut (write, pwrite, writev, pwritev, pwritev2, fallocate, ftruncate)
 *   while the app has MAP_SHARED views of it: the views' pages over the bytes it changed;
 * - madvise(MADV_DONTNEED or MADV_REMOVE) over file mappings: their pages, now the file's
 *   again (anonymous pages are zeroed, which the replay does itself);
 * - a file mapping grown by mremap: the new pages, which show the file.
 * App threads, TLS-free. */
#ifndef LOGGER_MAPPED_CHANGES_H
#define LOGGER_MAPPED_CHANGES_H

#include "syscall_model.h"

enum { MAPPED_CHANGES_MAX = 16 };

/* After syscall nr returned result: the app ranges it changed that way (up to
 * MAPPED_CHANGES_MAX into out, each within one mapping); returns how many. */
int mapped_changes(long nr, const long args[6], long result, struct mem_range *out);

#endif

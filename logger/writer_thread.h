/* The helper thread that turns queued records into pinball files (glibc allowed). */
#ifndef LOGGER_WRITER_THREAD_H
#define LOGGER_WRITER_THREAD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pinball.h"

/* Starts the thread, blocking every signal in it. `header` (copied shallowly: its strings
 * must live as long as the process) is the template of every pinball's header; each
 * REC_BEGIN adds its region start cause. 0, or -1 with a message in err. */
int writer_thread_start(const struct pinball_header *header, char *err, size_t errlen);

/* The run's session directory (-jit:session), where the pinballs' page chunks are shared
 * with the run's other processes (pinball_writer_set_chunk_cache); NULL: none. `report`
 * (-jit:stats): each pinball finished says how many of its chunks the directory had.
 * Before the app starts. */
void writer_thread_set_chunk_cache(const char *dir, bool report);

/* Bytes of pinball files written so far by this process image (any thread, approximate). */
uint64_t writer_thread_bytes(void);

/* Creates the directory that will hold the pinballs `basename`.k (mkdir -p of its
 * directory). 0, or -1 with errno set. */
int writer_make_parent_dirs(const char *basename);

#endif

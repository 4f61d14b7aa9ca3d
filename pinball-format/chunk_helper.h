/* A second thread that compresses one chunk of a part while the writer compresses the
 * next: once the app waits for its pinball (pinball_writer_hurry), the CPU it ran on is
 * free, and packing what is left is all the wait. One per process, started on first use
 * through pinball_set_thread_starter's function. Internal to the writer. */
#ifndef PINBALL_CHUNK_HELPER_H
#define PINBALL_CHUNK_HELPER_H

#include <stdbool.h>

#include "part_writer.h"

struct chunk_job {
	uint8_t *raw; /* the caller's; not touched until chunk_helper_wait returns */
	size_t raw_len, raw_cap;
	struct part_compression how;
	/* Set by the helper: the compressed bytes (in the helper's buffer, valid until the
	 * next job is given) and their size; 0: they do not compress; -1: out of memory. */
	const uint8_t *out;
	long stored;
	bool done;
};

/* Hands job to the helper. False when it cannot take it (no thread could be started, or
 * it is busy): the caller compresses the chunk itself. */
bool chunk_helper_give(struct chunk_job *job);
/* Returns once the helper has finished job. */
void chunk_helper_wait(struct chunk_job *job);
/* Chunks the helper compressed in this process (for tests). */
unsigned long chunk_helper_chunks(void);

#endif

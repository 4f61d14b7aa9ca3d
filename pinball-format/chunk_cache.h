/* Chunks of pages packed once for a whole run (pinball_writer_set_chunk_cache). A run
 * that execs the same programs again and again (a build, a test script) records the same
 * pages in the same order in each of their processes: the dynamic loader's, libc's and
 * the program's as its start-up touches them (with the run's translations shared, even
 * the order in which the JIT reads them is the same). Packing a chunk of them with zstd
 * was most of what a short recorded process's writer did; a chunk that another process of
 * the run packed is taken from a file in the run's directory instead, after its bytes are
 * found equal to this one's, so the pinball is what packing would have made. Internal to
 * the writer. */
#ifndef PINBALL_CHUNK_CACHE_H
#define PINBALL_CHUNK_CACHE_H

#include <stddef.h>
#include <stdint.h>

#include "part_writer.h"

/* The packed form of raw[0..len) as how.cache_dir holds it, into s's buffer: its size, or
 * -1 when the directory has none (or one that does not check). *crc: raw's crc32c, the
 * entry's name, for chunk_cache_keep. */
long chunk_cache_find(struct chunk_scratch *s, struct part_compression how, const uint8_t *raw,
		      size_t len, uint32_t *crc);

/* raw[0..len) (whose crc32c chunk_cache_find gave) was packed into packed[0..n): kept for
 * the next process that packs the same bytes the same way, up to a bound on the
 * directory's chunks. */
void chunk_cache_keep(struct part_compression how, const uint8_t *raw, size_t len, uint32_t crc,
		      const uint8_t *packed, size_t n);

#endif

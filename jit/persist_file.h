/* The file that keeps a program's translations (persist.h): a header, the code cache
 * arenas' bases and lengths, their bytes, then (from a page boundary, to be mapped where
 * they are read: most are used) the records (persist_record.h). Checksums cover the rest:
 * a damaged file costs its use, not a crash of the app running its code. */
#ifndef JIT_PERSIST_FILE_H
#define JIT_PERSIST_FILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "persist_record.h"

enum { PERSIST_FILE_VERSION = 6 };

/* What a file must name to be of use: the key of its program, configuration and the
 * runtime's build; and the code cache segment its arenas are (code_cache.h). Where the
 * runtime itself was loaded does not matter: kept code holds none of its addresses (stubs
 * reach the dispatcher through the thread block, and get their records when taken). */
struct persist_file_id {
	uint64_t key;
	unsigned segment;
};

/* Reads the file at fd: its arenas go back where they were (code_cache_adopt; one whose
 * place is taken, or whose bytes do not check, is left out with its records), its records
 * are mapped read-only and handed to `each` in order, checked against the arenas first
 * (`each` returns false to stop). False when the file is of no use. */
bool persist_file_read(int fd, const struct persist_file_id *id,
		       bool (*each)(const struct record *r, void *arg), void *arg);

/* Writes the arenas of the segment, then the records. False on any failure (a full disk). */
bool persist_file_write(int fd, const struct persist_file_id *id,
			const struct record *const *records, size_t n_records);

#endif

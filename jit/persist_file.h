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

enum { PERSIST_FILE_VERSION = 2 };

/* What a file must name to be of use: the key of its program and configuration, and where
 * the runtime's code was (the same build at the same place); and the code cache segment
 * its arenas are (code_cache.h). */
struct persist_file_id {
	uint64_t key;
	uint64_t anchor;
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

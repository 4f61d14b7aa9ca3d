/* Streams the records of one part file, checking everything the format lets it check:
 * header magic, version, checksum, name and id; every chunk's sequence number, lengths,
 * checksum and decompressed size; record framing; the end chunk's totals; nothing after it.
 * Memory is bounded by the largest chunk. Internal; glibc allowed. */
#ifndef PINBALL_PART_READER_H
#define PINBALL_PART_READER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct part_reader {
	char *path;
	int fd;
	uint64_t file_size;
	uint64_t offset;       /* next unread byte */
	uint64_t chunk_offset; /* header of the chunk being consumed */
	uint8_t id[16];
	uint32_t codec;	 /* enum part_codec */
	void *zstd_dctx; /* made on first use */
	uint8_t *stored, *raw;
	size_t stored_cap, raw_cap, raw_len, raw_pos;
	uint32_t chunks;
	uint64_t records, raw_bytes, stored_bytes;
	bool ended;
	char *err; /* the owner's PINBALL_ERR_MAX buffer */
};

/* Opens `path` and checks its header: the name must be `name`; the id must equal
 * `expect_id` unless that is NULL (then pr->id is what the file says). */
int part_reader_open(struct part_reader *pr, const char *path, const char *name,
		     const uint8_t *expect_id, char *err);
/* 1 with the next record in *rec and *len (valid until the next call), 0 at a clean end,
 * -1 on error. */
int part_reader_next(struct part_reader *pr, const uint8_t **rec, size_t *len);
/* Formats "path: offset N: <what>" into the error buffer, at the current chunk. Returns -1. */
int part_reader_fail(struct part_reader *pr, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
void part_reader_close(struct part_reader *pr);

#endif

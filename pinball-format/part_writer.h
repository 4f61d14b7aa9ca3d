/* Writes one part file: the header, records packed into compressed chunks, the end chunk.
 * Internal to the writer; runs on a helper thread (glibc allowed). */
#ifndef PINBALL_PART_WRITER_H
#define PINBALL_PART_WRITER_H

#include <protobuf-c/protobuf-c.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "part_format.h"

/* Compression output buffer and states, shared by the parts of one pinball writer. */
struct chunk_scratch {
	uint8_t *buf;
	size_t cap;
	void *hc_state;	 /* LZ4HC's, made on first use */
	void *zstd_cctx; /* zstd's, made on first use */
};
void chunk_scratch_free(struct chunk_scratch *s);
/* s's buffer holds at least need bytes; false when out of memory. */
bool chunk_scratch_reserve(struct chunk_scratch *s, size_t need);

/* How a part's chunks are compressed. */
struct part_compression {
	enum part_codec codec;
	int level;	       /* LZ4: 0 for its fast mode, else LZ4HC's level; zstd: its level */
	const char *cache_dir; /* chunks packed by other processes of the run (chunk_cache.h) */
};
#define PART_LZ4_FAST ((struct part_compression){PART_CODEC_LZ4, 0, NULL})
#define PART_ZSTD_FAST ((struct part_compression){PART_CODEC_ZSTD, 1, NULL})

/* raw[0..len) compressed into s's buffer (or found so in how.cache_dir): their size, 0 when
 * they do not compress, -1 when out of memory. */
long chunk_compress(struct chunk_scratch *s, struct part_compression how, const uint8_t *raw,
		    size_t len);

struct part_writer {
	char *name;	  /* "pages" */
	char *final_path; /* P.pages */
	char *tmp_path;	  /* P.pages.tmp-<pid>-<id> */
	int fd;		  /* -1 once closed */
	uint64_t offset;  /* bytes written to the file */
	uint8_t *raw;	  /* records of the chunk being filled */
	size_t raw_len, raw_cap, target;
	uint32_t chunks;
	uint64_t records, raw_bytes, stored_bytes;
	struct chunk_scratch *scratch;
	struct part_compression how;
	char *err; /* the owner's PINBALL_ERR_MAX buffer */
	/* Chunks compressed two at a time, one by the chunk helper (part_writer_hurry). */
	bool parallel;
	bool pending; /* job is the helper's or waits to be written, before the next chunk */
	struct chunk_job *job;
};

/* Creates base.name.tmp-<pid>-<idhex> and writes its header. */
int part_writer_open(struct part_writer *pw, const char *base, const char *name,
		     const uint8_t id[16], size_t target, struct chunk_scratch *scratch,
		     struct part_compression how, char *err);
int part_writer_add(struct part_writer *pw, const ProtobufCMessage *msg);
/* From now on, chunks are compressed two at a time (chunk_helper.h). */
void part_writer_hurry(struct part_writer *pw, int level);
/* Writes the last chunk and the end chunk, fsyncs and closes the file. */
int part_writer_close(struct part_writer *pw);
/* Renames the closed temporary file to its final name. */
int part_writer_commit(struct part_writer *pw);
/* Closes the file if open, removes the temporary file (if any) and frees everything. */
void part_writer_discard(struct part_writer *pw);

#endif

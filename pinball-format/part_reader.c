#include "part_reader.h"

#include <errno.h>
#include <fcntl.h>
#include <lz4.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zstd.h>

#include "part_format.h"
#include "pinball.h"
#include "rt_crc32c.h"

static int fail_at(struct part_reader *pr, uint64_t offset, const char *fmt, va_list ap)
{
	int n = snprintf(pr->err, PINBALL_ERR_MAX, "%s: offset %llu: ", pr->path,
			 (unsigned long long)offset);
	if (n >= 0 && n < PINBALL_ERR_MAX)
		vsnprintf(pr->err + n, PINBALL_ERR_MAX - (size_t)n, fmt, ap);
	return -1;
}

static int fail_offset(struct part_reader *pr, uint64_t offset, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int fail_offset(struct part_reader *pr, uint64_t offset, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fail_at(pr, offset, fmt, ap);
	va_end(ap);
	return -1;
}

int part_reader_fail(struct part_reader *pr, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fail_at(pr, pr->chunk_offset, fmt, ap);
	va_end(ap);
	return -1;
}

/* Reads exactly len bytes at the current offset; a short file is "truncated". */
static int read_exact(struct part_reader *pr, void *buf, size_t len, const char *what)
{
	uint64_t start = pr->offset;
	size_t got = 0;
	while (got < len) {
		ssize_t n = read(pr->fd, (uint8_t *)buf + got, len - got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return fail_offset(pr, start, "read failed: %s", strerror(errno));
		if (n == 0)
			return fail_offset(pr, start,
					   "truncated: %s needs %zu bytes, file ends at %llu", what,
					   len, (unsigned long long)(start + got));
		got += (size_t)n;
	}
	pr->offset += len;
	return 0;
}

static int check_header(struct part_reader *pr, const char *name, const uint8_t *expect_id)
{
	uint8_t h[PART_HEADER_SIZE];
	if (read_exact(pr, h, sizeof h, "the part header") < 0)
		return -1;
	if (memcmp(h, PART_MAGIC, PART_MAGIC_SIZE) != 0)
		return fail_offset(pr, 0, "not a pinball part (bad magic)");
	if (get_le32(h + 60) != rt_crc32c(0, h, 60))
		return fail_offset(pr, 60, "part header checksum mismatch");
	unsigned major = get_le16(h + 8), minor = get_le16(h + 10);
	if (major < PINBALL_FORMAT_OLDEST_MAJOR || major > PINBALL_FORMAT_MAJOR)
		return fail_offset(pr, 8, "format version %u.%u; this reader reads %u.x to %u.x",
				   major, minor, PINBALL_FORMAT_OLDEST_MAJOR, PINBALL_FORMAT_MAJOR);
	if (get_le32(h + 12) != PART_HEADER_SIZE)
		return fail_offset(pr, 12, "header size %u, expected %u", get_le32(h + 12),
				   PART_HEADER_SIZE);
	char stored_name[PART_NAME_SIZE + 1] = {0};
	memcpy(stored_name, h + 32, PART_NAME_SIZE);
	if (strcmp(stored_name, name) != 0) {
		for (char *c = stored_name; *c; c++) /* keep the message one printable line */
			if (*c < 0x20 || *c > 0x7e)
				*c = '?';
		return fail_offset(pr, 32, "header names part '%.24s', expected '%s'", stored_name,
				   name);
	}
	if (expect_id && memcmp(h + 16, expect_id, 16) != 0)
		return fail_offset(pr, 16,
				   "pinball id differs from P.meta's: part of another pinball");
	memcpy(pr->id, h + 16, 16);
	pr->codec = get_le32(h + 56);
	if (pr->codec != PART_CODEC_LZ4 && pr->codec != PART_CODEC_ZSTD)
		return fail_offset(pr, 56, "unknown compression %u", pr->codec);
	return 0;
}

int part_reader_open(struct part_reader *pr, const char *path, const char *name,
		     const uint8_t *expect_id, char *err)
{
	memset(pr, 0, sizeof *pr);
	pr->err = err;
	pr->fd = -1;
	if (!(pr->path = strdup(path))) {
		snprintf(err, PINBALL_ERR_MAX, "%s: out of memory", path);
		return -1;
	}
	pr->fd = open(path, O_RDONLY | O_CLOEXEC);
	struct stat st;
	if (pr->fd < 0 || fstat(pr->fd, &st) < 0) {
		snprintf(err, PINBALL_ERR_MAX, "%s: cannot open: %s", path, strerror(errno));
		return -1;
	}
	if (!S_ISREG(st.st_mode)) {
		snprintf(err, PINBALL_ERR_MAX, "%s: not a regular file", path);
		return -1;
	}
	pr->file_size = (uint64_t)st.st_size;
	return check_header(pr, name, expect_id);
}

static int grow(uint8_t **buf, size_t *cap, size_t need)
{
	if (*cap >= need)
		return 0;
	uint8_t *p = realloc(*buf, need);
	if (!p)
		return -1;
	*buf = p;
	*cap = need;
	return 0;
}

static int read_end_chunk(struct part_reader *pr)
{
	const uint8_t *p = pr->stored;
	if (get_le64(p) != pr->records || get_le64(p + 8) != pr->raw_bytes)
		return part_reader_fail(
		    pr,
		    "end chunk counts %llu records (%llu bytes), part has "
		    "%llu (%llu bytes)",
		    (unsigned long long)get_le64(p), (unsigned long long)get_le64(p + 8),
		    (unsigned long long)pr->records, (unsigned long long)pr->raw_bytes);
	if (pr->offset != pr->file_size)
		return fail_offset(pr, pr->offset, "%llu bytes after the end chunk",
				   (unsigned long long)(pr->file_size - pr->offset));
	pr->ended = true;
	return 0;
}

/* The stored bytes of a compressed chunk into its `raw` bytes at pr->raw. */
static int decompress_chunk(struct part_reader *pr, uint32_t stored, uint32_t raw)
{
	if (pr->codec == PART_CODEC_LZ4) {
		int n = LZ4_decompress_safe((const char *)pr->stored, (char *)pr->raw, (int)stored,
					    (int)raw);
		return n == (int)raw
			   ? 0
			   : part_reader_fail(pr, "LZ4 data does not decode to %u bytes", raw);
	}
	if (!pr->zstd_dctx && !(pr->zstd_dctx = ZSTD_createDCtx()))
		return part_reader_fail(pr, "out of memory for zstd");
	size_t n = ZSTD_decompressDCtx(pr->zstd_dctx, pr->raw, raw, pr->stored, stored);
	return !ZSTD_isError(n) && n == raw
		   ? 0
		   : part_reader_fail(pr, "zstd data does not decode to %u bytes", raw);
}

/* Loads the next chunk into pr->raw. 1 loaded, 0 end chunk, -1 error. */
static int load_chunk(struct part_reader *pr)
{
	uint8_t h[CHUNK_HEADER_SIZE];
	pr->chunk_offset = pr->offset;
	if (read_exact(pr, h, sizeof h, "a chunk header") < 0)
		return -1;
	uint32_t stored = get_le32(h), raw = get_le32(h + 4), seq = get_le32(h + 8);
	bool end = raw == 0;
	if (end ? stored != END_PAYLOAD_SIZE : (stored == 0 || stored > raw || raw > CHUNK_RAW_MAX))
		return part_reader_fail(pr, "bad chunk lengths (stored %u, raw %u)", stored, raw);
	if (stored > pr->file_size - pr->offset)
		return part_reader_fail(pr, "truncated: chunk of %u bytes, file ends at %llu",
					stored, (unsigned long long)pr->file_size);
	if (grow(&pr->stored, &pr->stored_cap, stored) < 0)
		return part_reader_fail(pr, "out of memory for a %u-byte chunk", stored);
	if (read_exact(pr, pr->stored, stored, "a chunk") < 0)
		return -1;
	if (get_le32(h + 12) != rt_crc32c(rt_crc32c(0, h, 12), pr->stored, stored))
		return part_reader_fail(pr, "chunk checksum mismatch");
	if (seq != pr->chunks)
		return part_reader_fail(pr, "chunk number %u, expected %u", seq, pr->chunks);
	if (end)
		return read_end_chunk(pr);
	if (stored == raw) {
		uint8_t *t = pr->raw;
		size_t tcap = pr->raw_cap;
		pr->raw = pr->stored; /* swap: the payload is the raw bytes */
		pr->raw_cap = pr->stored_cap;
		pr->stored = t;
		pr->stored_cap = tcap;
	} else {
		if (grow(&pr->raw, &pr->raw_cap, raw) < 0)
			return part_reader_fail(pr, "out of memory for a %u-byte chunk", raw);
		if (decompress_chunk(pr, stored, raw) < 0)
			return -1;
	}
	pr->chunks++;
	pr->stored_bytes += stored;
	pr->raw_len = raw;
	pr->raw_pos = 0;
	return 1;
}

int part_reader_next(struct part_reader *pr, const uint8_t **rec, size_t *len)
{
	if (pr->ended)
		return 0;
	while (pr->raw_pos == pr->raw_len) {
		int r = load_chunk(pr);
		if (r <= 0)
			return r;
	}
	const uint8_t *start = pr->raw + pr->raw_pos, *p = start, *end = pr->raw + pr->raw_len;
	uint64_t size = 0;
	for (int shift = 0;; shift += 7) {
		if (p == end || shift > 63)
			return part_reader_fail(pr, "record %llu: bad length prefix",
						(unsigned long long)pr->records);
		size |= (uint64_t)(*p & 0x7f) << shift;
		if (!(*p++ & 0x80))
			break;
	}
	if (size > (uint64_t)(end - p))
		return part_reader_fail(pr, "record %llu: length %llu runs past the chunk end",
					(unsigned long long)pr->records, (unsigned long long)size);
	*rec = p;
	*len = (size_t)size;
	pr->raw_pos = (size_t)(p + size - pr->raw);
	pr->raw_bytes += (uint64_t)(p + size - start);
	pr->records++;
	return 1;
}

void part_reader_close(struct part_reader *pr)
{
	if (pr->fd >= 0)
		close(pr->fd);
	free(pr->path);
	free(pr->stored);
	free(pr->raw);
	ZSTD_freeDCtx(pr->zstd_dctx);
	memset(pr, 0, sizeof *pr);
	pr->fd = -1;
}

#include "part_writer.h"

#include <errno.h>
#include <fcntl.h>
#include <lz4.h>
#include <lz4hc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>
#include <zstd.h>

#include "chunk_cache.h"
#include "chunk_helper.h"
#include "part_format.h"
#include "pinball.h"

static int keep_fd(int fd)
{
	return fd;
}

static int (*place_fd)(int fd) = keep_fd;
static int (*release_fd)(int fd) = close;

void pinball_set_fd_policy(int (*place)(int fd), int (*release)(int fd))
{
	place_fd = place;
	release_fd = release;
}

static int fail_errno(struct part_writer *pw, const char *what, int e)
{
	snprintf(pw->err, PINBALL_ERR_MAX, "%s: %s at offset %llu: %s", pw->tmp_path, what,
		 (unsigned long long)pw->offset, strerror(e));
	return -1;
}

/* Writes all of iov[0..n), retrying short writes and EINTR. */
static int write_all(struct part_writer *pw, struct iovec *iov, int n)
{
	while (n > 0) {
		ssize_t done = writev(pw->fd, iov, n);
		if (done < 0) {
			if (errno == EINTR)
				continue;
			return fail_errno(pw, "write failed", errno);
		}
		if (done == 0)
			return fail_errno(pw, "write failed", EIO);
		pw->offset += (uint64_t)done;
		while (n > 0 && (size_t)done >= iov->iov_len) {
			done -= (ssize_t)iov->iov_len;
			iov++;
			n--;
		}
		if (n > 0) {
			iov->iov_base = (uint8_t *)iov->iov_base + done;
			iov->iov_len -= (size_t)done;
		}
	}
	return 0;
}

static int write_chunk(struct part_writer *pw, const uint8_t *payload, uint32_t stored,
		       uint32_t raw)
{
	uint8_t head[CHUNK_HEADER_SIZE];
	chunk_header_encode(head, stored, raw, pw->chunks, payload);
	struct iovec iov[2] = {{head, sizeof head}, {(void *)payload, stored}};
	if (write_all(pw, iov, 2) < 0)
		return -1;
	pw->chunks++;
	pw->stored_bytes += stored;
	return 0;
}

void chunk_scratch_free(struct chunk_scratch *s)
{
	free(s->buf);
	free(s->hc_state);
	ZSTD_freeCCtx(s->zstd_cctx);
	memset(s, 0, sizeof *s);
}

bool chunk_scratch_reserve(struct chunk_scratch *s, size_t need)
{
	if (s->cap >= need)
		return true;
	uint8_t *grown = realloc(s->buf, need);
	if (!grown)
		return false;
	s->buf = grown;
	s->cap = need;
	return true;
}

static long compress(struct chunk_scratch *s, struct part_compression how, const uint8_t *raw,
		     size_t len)
{
	bool zstd = how.codec == PART_CODEC_ZSTD;
	size_t bound = zstd ? ZSTD_compressBound(len) : (size_t)LZ4_compressBound((int)len);
	if (!chunk_scratch_reserve(s, bound))
		return -1;
	if (zstd) {
		if (!s->zstd_cctx && !(s->zstd_cctx = ZSTD_createCCtx()))
			return -1;
		size_t n = ZSTD_compressCCtx(s->zstd_cctx, s->buf, bound, raw, len, how.level);
		return ZSTD_isError(n) ? 0 : (long)n;
	}
	if (how.level && !s->hc_state && !(s->hc_state = malloc((size_t)LZ4_sizeofStateHC())))
		return -1;
	const char *raw_bytes = (const char *)raw;
	int n = how.level ? LZ4_compress_HC_extStateHC(s->hc_state, raw_bytes, (char *)s->buf,
						       (int)len, (int)bound, how.level)
			  : LZ4_compress_default(raw_bytes, (char *)s->buf, (int)len, (int)bound);
	return n > 0 ? n : 0;
}

long chunk_compress(struct chunk_scratch *s, struct part_compression how, const uint8_t *raw,
		    size_t len)
{
	uint32_t crc = 0;
	long n = how.cache_dir ? chunk_cache_find(s, how, raw, len, &crc) : -1;
	if (n > 0)
		return n;
	n = compress(s, how, raw, len);
	if (how.cache_dir && n > 0)
		chunk_cache_keep(how, raw, len, crc, s->buf, (size_t)n);
	return n;
}

/* Writes a chunk of raw bytes, compressed to `stored` bytes at `packed` when that is
 * smaller. */
static int write_packed(struct part_writer *pw, const uint8_t *packed, long stored,
			const uint8_t *raw, size_t raw_len)
{
	if (stored < 0)
		return fail_errno(pw, "out of memory", ENOMEM);
	uint32_t n = (uint32_t)raw_len;
	return stored > 0 && (uint64_t)stored < n ? write_chunk(pw, packed, (uint32_t)stored, n)
						  : write_chunk(pw, raw, n, n);
}

/* Writes the chunk the helper took, once it is done; its buffer becomes the next chunk's
 * if that has none. */
static int finish_pending(struct part_writer *pw)
{
	if (!pw->pending)
		return 0;
	struct chunk_job *job = pw->job;
	chunk_helper_wait(job);
	pw->pending = false;
	int r = write_packed(pw, job->out, job->stored, job->raw, job->raw_len);
	if (!pw->raw) {
		pw->raw = job->raw;
		pw->raw_cap = job->raw_cap;
	} else {
		free(job->raw);
	}
	job->raw = NULL;
	return r;
}

/* Gives the chunk being filled to the helper; the next is filled in another buffer. */
static bool hand_over(struct part_writer *pw)
{
	struct chunk_job *job = pw->job;
	*job = (struct chunk_job){
	    .raw = pw->raw, .raw_len = pw->raw_len, .raw_cap = pw->raw_cap, .how = pw->how};
	if (!chunk_helper_give(job))
		return false;
	pw->pending = true;
	pw->raw = NULL;
	pw->raw_len = pw->raw_cap = 0;
	return true;
}

/* Writes the chunk being filled, and before it the helper's, in their order: while the
 * helper compresses one chunk, this thread fills and compresses the next. */
static int flush_chunk(struct part_writer *pw)
{
	if (!pw->raw_len)
		return finish_pending(pw);
	if (pw->parallel && !pw->pending && hand_over(pw))
		return 0;
	long n = chunk_compress(pw->scratch, pw->how, pw->raw, pw->raw_len);
	if (finish_pending(pw) < 0)
		return -1;
	int r = write_packed(pw, pw->scratch->buf, n, pw->raw, pw->raw_len);
	pw->raw_len = 0;
	return r;
}

void part_writer_hurry(struct part_writer *pw, int level)
{
	pw->how.level = level;
	if (!pw->job)
		pw->job = calloc(1, sizeof *pw->job);
	pw->parallel = pw->job != NULL;
}

int part_writer_open(struct part_writer *pw, const char *base, const char *name,
		     const uint8_t id[16], size_t target, struct chunk_scratch *scratch,
		     struct part_compression how, char *err)
{
	memset(pw, 0, sizeof *pw);
	pw->fd = -1;
	pw->err = err;
	pw->target = target;
	pw->scratch = scratch;
	pw->how = how;
	char idhex[9];
	snprintf(idhex, sizeof idhex, "%02x%02x%02x%02x", id[0], id[1], id[2], id[3]);
	if (asprintf(&pw->final_path, "%s.%s", base, name) < 0 ||
	    asprintf(&pw->tmp_path, "%s.tmp-%d-%s", pw->final_path, (int)getpid(), idhex) < 0 ||
	    !(pw->name = strdup(name))) {
		snprintf(err, PINBALL_ERR_MAX, "%s.%s: out of memory", base, name);
		return -1;
	}
	pw->fd = open(pw->tmp_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (pw->fd < 0) {
		snprintf(err, PINBALL_ERR_MAX, "%s: cannot create: %s", pw->tmp_path,
			 strerror(errno));
		return -1;
	}
	pw->fd = place_fd(pw->fd);
	uint8_t head[PART_HEADER_SIZE];
	part_header_encode(head, id, name, how.codec);
	struct iovec iov = {head, sizeof head};
	return write_all(pw, &iov, 1);
}

static size_t varint_size(size_t v)
{
	size_t n = 1;
	while (v >= 0x80) {
		v >>= 7;
		n++;
	}
	return n;
}

int part_writer_add(struct part_writer *pw, const ProtobufCMessage *msg)
{
	size_t size = protobuf_c_message_get_packed_size(msg);
	size_t need = varint_size(size) + size;
	if (need > CHUNK_RAW_MAX) {
		snprintf(pw->err, PINBALL_ERR_MAX,
			 "%s: a record of %zu bytes exceeds the %u-byte limit", pw->tmp_path, size,
			 CHUNK_RAW_MAX);
		return -1;
	}
	if (pw->raw_len && pw->raw_len + need > pw->target && flush_chunk(pw) < 0)
		return -1;
	if (pw->raw_len + need > pw->raw_cap) {
		size_t cap = pw->raw_len + need > pw->target ? pw->raw_len + need : pw->target;
		uint8_t *grown = realloc(pw->raw, cap);
		if (!grown)
			return fail_errno(pw, "out of memory", ENOMEM);
		pw->raw = grown;
		pw->raw_cap = cap;
	}
	uint8_t *p = pw->raw + pw->raw_len;
	for (size_t v = size;; v >>= 7) {
		*p++ = (uint8_t)(v & 0x7f) | (v >= 0x80 ? 0x80 : 0);
		if (v < 0x80)
			break;
	}
	protobuf_c_message_pack(msg, p);
	pw->raw_len += need;
	pw->raw_bytes += need;
	pw->records++;
	return 0;
}

int part_writer_close(struct part_writer *pw)
{
	if (flush_chunk(pw) < 0 || finish_pending(pw) < 0)
		return -1;
	uint8_t end[END_PAYLOAD_SIZE];
	put_le64(end, pw->records);
	put_le64(end + 8, pw->raw_bytes);
	if (write_chunk(pw, end, END_PAYLOAD_SIZE, 0) < 0)
		return -1;
	pw->stored_bytes -= END_PAYLOAD_SIZE; /* stored_bytes counts data chunks only */
	pw->chunks--;
	if (fsync(pw->fd) < 0)
		return fail_errno(pw, "fsync failed", errno);
	int fd = pw->fd;
	pw->fd = -1;
	if (release_fd(fd) < 0)
		return fail_errno(pw, "close failed", errno);
	free(pw->raw);
	pw->raw = NULL;
	pw->raw_cap = 0;
	return 0;
}

int part_writer_commit(struct part_writer *pw)
{
	if (rename(pw->tmp_path, pw->final_path) < 0) {
		snprintf(pw->err, PINBALL_ERR_MAX, "%s: cannot rename to %s: %s", pw->tmp_path,
			 pw->final_path, strerror(errno));
		return -1;
	}
	free(pw->tmp_path);
	pw->tmp_path = NULL;
	return 0;
}

void part_writer_discard(struct part_writer *pw)
{
	if (pw->pending) /* (the helper reads its buffer until done) */
		chunk_helper_wait(pw->job);
	if (pw->job)
		free(pw->job->raw);
	free(pw->job);
	if (pw->fd >= 0)
		release_fd(pw->fd);
	if (pw->tmp_path)
		unlink(pw->tmp_path);
	free(pw->tmp_path);
	free(pw->final_path);
	free(pw->name);
	free(pw->raw);
	memset(pw, 0, sizeof *pw);
	pw->fd = -1;
}

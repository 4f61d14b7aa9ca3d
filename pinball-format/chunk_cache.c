#include "chunk_cache.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "rt_crc32c.h"

/* A run's directory may be memory ($TMPDIR on tmpfs): its chunks stay below this. */
#define MAX_CACHE_BYTES (64ull << 20)

static const char magic[8] = "PTCHUNK1";
static unsigned long looked, taken; /* atomic */

void pinball_chunk_cache_counts(unsigned long *looked_up, unsigned long *found)
{
	*looked_up = __atomic_load_n(&looked, __ATOMIC_RELAXED);
	*found = __atomic_load_n(&taken, __ATOMIC_RELAXED);
}

/* An entry: this header, the raw bytes, the packed bytes. */
struct entry_header {
	char magic[8];
	uint32_t raw_len, packed_len;
	uint32_t raw_crc, packed_crc;
};

static void entry_path(char *out, size_t cap, struct part_compression how, uint32_t crc, size_t len)
{
	snprintf(out, cap, "%s/chunk-%08x-%zx-%d-%d", how.cache_dir, crc, len, (int)how.codec,
		 how.level);
}

static bool read_at(int fd, void *buf, size_t len, off_t at)
{
	for (size_t done = 0; done < len;) {
		ssize_t n = pread(fd, (uint8_t *)buf + done, len - done, at + (off_t)done);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return false;
		done += (size_t)n;
	}
	return true;
}

long chunk_cache_find(struct chunk_scratch *s, struct part_compression how, const uint8_t *raw,
		      size_t len, uint32_t *crc_out)
{
	uint32_t crc = *crc_out = rt_crc32c(0, raw, len);
	char path[4096];
	entry_path(path, sizeof path, how, crc, len);
	__atomic_add_fetch(&looked, 1, __ATOMIC_RELAXED);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	struct entry_header h;
	long found = -1;
	/* (the raw bytes are read where the packed ones go next: one buffer) */
	if (read_at(fd, &h, sizeof h, 0) && !memcmp(h.magic, magic, sizeof magic) &&
	    h.raw_len == len && h.raw_crc == crc && h.packed_len && h.packed_len < len &&
	    chunk_scratch_reserve(s, len) && read_at(fd, s->buf, len, sizeof h) &&
	    !memcmp(s->buf, raw, len) &&
	    read_at(fd, s->buf, h.packed_len, (off_t)(sizeof h + len)) &&
	    rt_crc32c(0, s->buf, h.packed_len) == h.packed_crc)
		found = h.packed_len;
	close(fd);
	if (found > 0)
		__atomic_add_fetch(&taken, 1, __ATOMIC_RELAXED);
	return found;
}

static pthread_once_t counted = PTHREAD_ONCE_INIT;
static const char *counted_dir;
static uint64_t cache_bytes; /* the directory's chunks, as this process knows them */

static void count_cache_bytes(void)
{
	DIR *d = opendir(counted_dir);
	if (!d)
		return;
	for (struct dirent *e; (e = readdir(d));) {
		struct stat st;
		if (!strncmp(e->d_name, "chunk-", 6) && !fstatat(dirfd(d), e->d_name, &st, 0))
			cache_bytes += (uint64_t)st.st_size;
	}
	closedir(d);
}

void chunk_cache_keep(struct part_compression how, const uint8_t *raw, size_t len, uint32_t crc,
		      const uint8_t *packed, size_t n)
{
	struct entry_header h = {.raw_len = (uint32_t)len,
				 .packed_len = (uint32_t)n,
				 .raw_crc = crc,
				 .packed_crc = rt_crc32c(0, packed, n)};
	memcpy(h.magic, magic, sizeof magic);
	char path[4096];
	entry_path(path, sizeof path, how, h.raw_crc, len);
	counted_dir = how.cache_dir; /* (one directory per process: the run's) */
	pthread_once(&counted, count_cache_bytes);
	uint64_t size = sizeof h + len + n;
	if (__atomic_add_fetch(&cache_bytes, size, __ATOMIC_RELAXED) > MAX_CACHE_BYTES)
		return;
	char tmp[4096 + 32];
	/* (the writer and its helper may keep the same bytes at once: a name each) */
	snprintf(tmp, sizeof tmp, "%s.%ld.tmp", path, (long)syscall(SYS_gettid));
	int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0)
		return;
	bool ok = write(fd, &h, sizeof h) == (ssize_t)sizeof h &&
		  write(fd, raw, len) == (ssize_t)len && write(fd, packed, n) == (ssize_t)n;
	ok &= close(fd) == 0;
	/* (a reader finds the whole entry or none) */
	if (!ok || rename(tmp, path) != 0)
		unlink(tmp);
}

/* libFuzzer target: unpacks a pinball (fuzz_container.h) into files and runs
 * pinball_verify on it, which drives the whole reader: P.meta, every part's header, chunks,
 * LZ4, protobuf decoding and the checks against P.meta. Built with clang and
 * -fsanitize=fuzzer,address,undefined; any crash, leak or UB report fails the run. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fuzz_container.h"
#include "part_format.h"
#include "pinball.h"
#include "rt_crc32c.h"

static char dir[256], base[300];

static void remove_dir(void)
{
	rmdir(dir);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	const char *root = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
	snprintf(dir, sizeof dir, "%s/pinball-fuzz-XXXXXX", root);
	if (!mkdtemp(dir))
		abort();
	snprintf(base, sizeof base, "%s/p", dir);
	atexit(remove_dir);
	return 0;
}

/* Recomputes the header checksum and those of every chunk whose length fits. */
static void fix_checksums(uint8_t *p, size_t size)
{
	if (size < PART_HEADER_SIZE)
		return;
	put_le32(p + 60, rt_crc32c(0, p, 60));
	for (size_t off = PART_HEADER_SIZE; size - off >= CHUNK_HEADER_SIZE;) {
		uint32_t stored = get_le32(p + off);
		if (stored > size - off - CHUNK_HEADER_SIZE)
			return;
		uint8_t *payload = p + off + CHUNK_HEADER_SIZE;
		put_le32(p + off + 12, rt_crc32c(rt_crc32c(0, p + off, 12), payload, stored));
		off += CHUNK_HEADER_SIZE + stored;
	}
}

static int name_ok(const uint8_t *name, size_t len)
{
	if (len == 0 || len > FUZZ_NAME_MAX || name[0] == '.')
		return 0;
	for (size_t i = 0; i < len; i++)
		if (!((name[i] >= 'a' && name[i] <= 'z') || (name[i] >= '0' && name[i] <= '9') ||
		      name[i] == '.'))
			return 0;
	return 1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	unsigned flags = data[0];
	char paths[16][sizeof base + FUZZ_NAME_MAX + 2];
	int n = 0;
	size_t off = 1;
	while (n < 16 && off < size) {
		size_t len = data[off++];
		if (len > size - off || !name_ok(data + off, len))
			break;
		snprintf(paths[n], sizeof paths[n], "%s.%.*s", base, (int)len,
			 (const char *)data + off);
		off += len;
		if (size - off < 4)
			break;
		uint32_t bytes = get_le32(data + off);
		off += 4;
		if (bytes > size - off)
			bytes = (uint32_t)(size - off);
		uint8_t *copy = malloc(bytes + 1);
		memcpy(copy, data + off, bytes);
		off += bytes;
		if (flags & FUZZ_FIX_CHECKSUMS)
			fix_checksums(copy, bytes);
		FILE *f = fopen(paths[n], "wb");
		if (f) {
			fwrite(copy, 1, bytes, f);
			fclose(f);
			n++;
		}
		free(copy);
	}
	char err[PINBALL_ERR_MAX];
	if (pinball_verify(base, err) != 0 && (!err[0] || strchr(err, '\n'))) {
		fprintf(stderr, "refused without one clear line: '%s'\n", err);
		abort(); /* every refusal must be one non-empty line */
	}
	for (int i = 0; i < n; i++)
		unlink(paths[i]);
	return 0;
}

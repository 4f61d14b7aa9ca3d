/* Format versions: a 2.x writer compresses every part with zstd, and a pinball as a 1.x
 * writer made it (every part LZ4, major version 1) still reads. */
#include <check.h>
#include <dirent.h>
#include <lz4.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zstd.h>

#include "fixture.h"
#include "meta_edit.h"
#include "part_format.h"
#include "pinball.h"
#include "pinball.pb-c.h"
#include "pinball_tests.h"
#include "rt_crc32c.h"

static char *part_path(const char *name)
{
	char *path;
	ck_assert_int_ge(asprintf(&path, "%s.%s", test_base, name), 0);
	return path;
}

static uint8_t *slurp(const char *path, size_t *size)
{
	FILE *f = fopen(path, "rb");
	ck_assert_ptr_nonnull(f);
	fseek(f, 0, SEEK_END);
	*size = (size_t)ftell(f);
	rewind(f);
	uint8_t *bytes = malloc(*size);
	ck_assert_uint_eq(fread(bytes, 1, *size, f), *size);
	fclose(f);
	return bytes;
}

static void spill(const char *path, const uint8_t *bytes, size_t size)
{
	FILE *f = fopen(path, "wb");
	ck_assert_ptr_nonnull(f);
	ck_assert_uint_eq(fwrite(bytes, 1, size, f), size);
	fclose(f);
}

/* The header of a 1.6 writer: major 1, minor 6, codec field 0. */
static void make_v1_header(uint8_t *h)
{
	put_le16(h + 8, 1);
	put_le16(h + 10, 6);
	put_le32(h + 56, PART_CODEC_LZ4);
	put_le32(h + 60, rt_crc32c(0, h, 60));
}

/* Rewrites a part's chunks as LZ4 blocks under a 1.6 header; returns its new size and
 * the bytes its data chunks store. */
static size_t rewrite_as_v1(const char *name, uint64_t *stored_bytes)
{
	char *path = part_path(name);
	size_t size;
	uint8_t *in = slurp(path, &size);
	uint8_t *out = malloc(2 * size + (1u << 20));
	memcpy(out, in, PART_HEADER_SIZE);
	bool zstd = get_le32(in + 56) == PART_CODEC_ZSTD;
	make_v1_header(out);
	size_t at = PART_HEADER_SIZE, put = PART_HEADER_SIZE;
	*stored_bytes = 0;
	while (at < size) {
		uint32_t stored = get_le32(in + at), raw = get_le32(in + at + 4);
		uint32_t seq = get_le32(in + at + 8);
		const uint8_t *payload = in + at + CHUNK_HEADER_SIZE;
		uint8_t *to = out + put + CHUNK_HEADER_SIZE;
		uint32_t now = stored;
		if (raw && stored < raw && zstd) {
			uint8_t *plain = malloc(raw);
			ck_assert_uint_eq(ZSTD_decompress(plain, raw, payload, stored), raw);
			int n = LZ4_compress_default((const char *)plain, (char *)to, (int)raw,
						     LZ4_compressBound((int)raw));
			ck_assert_int_gt(n, 0);
			if ((uint32_t)n < raw) {
				now = (uint32_t)n;
			} else {
				memcpy(to, plain, raw);
				now = raw;
			}
			free(plain);
		} else {
			memcpy(to, payload, stored);
		}
		chunk_header_encode(out + put, now, raw, seq, to);
		at += CHUNK_HEADER_SIZE + stored;
		put += CHUNK_HEADER_SIZE + now;
		if (raw)
			*stored_bytes += now;
	}
	spill(path, out, put);
	free(in);
	free(out);
	free(path);
	return put;
}

static uint32_t header_codec(const char *name)
{
	char *path = part_path(name);
	size_t size;
	uint8_t *bytes = slurp(path, &size);
	ck_assert_uint_eq(get_le16(bytes + 8), PINBALL_FORMAT_MAJOR);
	uint32_t codec = get_le32(bytes + 56);
	free(bytes);
	free(path);
	return codec;
}

/* A checksum of every page's address, protection and bytes, read through the public API. */
static uint32_t pages_crc(struct pinball_reader *r, uint32_t page_size)
{
	char err[PINBALL_ERR_MAX];
	struct pinball_cursor *c = pinball_cursor_open(r, "pages", err);
	ck_assert_msg(c, "%s", err);
	struct pinball_page page;
	uint32_t crc = 0;
	int got;
	while ((got = pinball_next_page(c, &page)) == 1) {
		crc = rt_crc32c(crc, &page.addr, sizeof page.addr);
		crc = rt_crc32c(crc, &page.prot, sizeof page.prot);
		if (page.data)
			crc = rt_crc32c(crc, page.data, page.npages * page_size);
	}
	ck_assert_msg(got == 0, "%s", pinball_cursor_error(c));
	pinball_cursor_close(c);
	return crc;
}

START_TEST(parts_are_zstd)
{
	ck_assert_uint_eq(header_codec("pages"), PART_CODEC_ZSTD);
	ck_assert_uint_eq(header_codec("threads"), PART_CODEC_ZSTD);
	ck_assert_uint_eq(header_codec("meta"), PART_CODEC_ZSTD);
}
END_TEST

START_TEST(version_1_pinballs_still_read)
{
	char err[PINBALL_ERR_MAX];
	struct pinball_reader *before = pinball_reader_open(test_base, err);
	ck_assert_msg(before, "%s", err);
	uint32_t page_size = pinball_reader_header(before)->page_size;
	if (!page_size)
		page_size = 4096;
	uint32_t want = pages_crc(before, page_size);
	pinball_reader_close(before);

	uint8_t id[16];
	Pinball__Meta *meta = meta_read(test_base, id);
	meta->header->format_major = 1;
	meta->header->format_minor = 6;
	for (size_t i = 0; i < meta->n_parts; i++)
		meta->parts[i]->file_bytes =
		    rewrite_as_v1(meta->parts[i]->name, &meta->parts[i]->stored_bytes);

	meta_write(test_base, id, meta);
	pinball__meta__free_unpacked(meta, NULL);
	char *meta_path = part_path("meta");
	size_t size;
	uint8_t *bytes = slurp(meta_path, &size);
	make_v1_header(bytes);
	spill(meta_path, bytes, size);
	free(bytes);
	free(meta_path);

	ck_assert_msg(pinball_verify(test_base, err) == 0, "%s", err);
	struct pinball_reader *after = pinball_reader_open(test_base, err);
	ck_assert_msg(after, "%s", err);
	ck_assert_uint_eq(pinball_reader_header(after)->format_major, 1);
	ck_assert_uint_eq(pages_crc(after, page_size), want);
	pinball_reader_close(after);
}
END_TEST

Suite *pinball_versions_suite(void)
{
	Suite *s = suite_create("pinball_versions");
	TCase *tc = tcase_create("versions");
	tcase_add_checked_fixture(tc, fixture_setup_synth, fixture_teardown);
	tcase_add_test(tc, parts_are_zstd);
	tcase_add_test(tc, version_1_pinballs_still_read);
	suite_add_tcase(s, tc);
	return s;
}

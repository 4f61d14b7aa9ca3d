/* Page chunks shared by the writers of a run (pinball_writer_set_chunk_cache): a writer
 * that packs the same pages as one before it takes that one's chunks, and its pinball is
 * byte for byte what packing would have made; an entry that does not match is not taken. */
#include <check.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fixture.h"
#include "page_pattern.h"
#include "part_format.h"
#include "pinball.h"
#include "pinball_tests.h"
#include "synth.h"

enum { PAGES = 400 }; /* 1.6 MiB: chunks at both of the writer's levels */

/* Writes base with the test's pages through cache (NULL: none); returns the chunks it
 * looked up and took. */
static void write_pages(const char *base, const char *cache, unsigned long *looked,
			unsigned long *taken)
{
	unsigned long looked0, taken0;
	pinball_chunk_cache_counts(&looked0, &taken0);
	char err[PINBALL_ERR_MAX];
	struct pinball_header h = {.tool_version = "test", .arch = "x86_64", .page_size = 4096};
	struct pinball_writer *w = pinball_writer_create(base, &h, err);
	ck_assert_msg(w != NULL, "%s", err);
	if (cache)
		pinball_writer_set_chunk_cache(w, cache);
	struct pinball_map_entry map = {0x10000000, 0x10000000 + PAGES * 4096, 5, 0x22, 0, ""};
	ck_assert_int_eq(pinball_writer_add_map(w, &map), 0);
	static uint8_t page[4096];
	for (uint64_t i = 0; i < PAGES; i++) {
		page_pattern(page, sizeof page, i);
		ck_assert_int_eq(pinball_writer_add_page(w, 0x10000000 + i * 4096, 5, page), 0);
	}
	ck_assert_int_eq(pinball_writer_finish(w, NULL), 0);
	pinball_writer_free(w);
	ck_assert_msg(pinball_verify(base, err) == 0, "%s", err);
	pinball_chunk_cache_counts(looked, taken);
	*looked -= looked0;
	*taken -= taken0;
}

/* The pages part after its header (which holds the pinball's id). */
static char *pages_of(const char *base, long *len)
{
	char path[4096];
	snprintf(path, sizeof path, "%s.pages", base);
	FILE *f = fopen(path, "rb");
	ck_assert_ptr_nonnull(f);
	fseek(f, 0, SEEK_END);
	*len = ftell(f) - PART_HEADER_SIZE;
	char *bytes = malloc((size_t)*len);
	fseek(f, PART_HEADER_SIZE, SEEK_SET);
	ck_assert_int_eq(fread(bytes, 1, (size_t)*len, f), (size_t)*len);
	fclose(f);
	return bytes;
}

static void assert_same_pages(const char *a, const char *b)
{
	long na, nb;
	char *pa = pages_of(a, &na), *pb = pages_of(b, &nb);
	ck_assert_int_eq(na, nb);
	ck_assert_msg(!memcmp(pa, pb, (size_t)na), "%s and %s pack their pages differently", a, b);
	free(pa);
	free(pb);
}

/* Flips a raw byte in every entry of dir: the bytes no longer match any writer's. */
static int spoil_entries(const char *dir)
{
	DIR *d = opendir(dir);
	ck_assert_ptr_nonnull(d);
	int spoiled = 0;
	for (struct dirent *e; (e = readdir(d));) {
		if (strncmp(e->d_name, "chunk-", 6))
			continue;
		char path[4096];
		snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
		FILE *f = fopen(path, "r+b");
		ck_assert_ptr_nonnull(f);
		fseek(f, 100, SEEK_SET);
		int c = fgetc(f);
		fseek(f, 100, SEEK_SET);
		fputc(c ^ 1, f);
		fclose(f);
		spoiled++;
	}
	closedir(d);
	return spoiled;
}

START_TEST(a_writer_takes_the_chunks_another_packed)
{
	char *cache = synth_tmpdir();
	char plain[4096], first[4096], second[4096], spoiled[4096];
	snprintf(plain, sizeof plain, "%s/plain", test_dir);
	snprintf(first, sizeof first, "%s/first", test_dir);
	snprintf(second, sizeof second, "%s/second", test_dir);
	snprintf(spoiled, sizeof spoiled, "%s/spoiled", test_dir);
	unsigned long looked, taken;
	write_pages(plain, NULL, &looked, &taken);
	ck_assert_uint_eq(looked, 0);
	write_pages(first, cache, &looked, &taken);
	ck_assert_uint_gt(looked, 1);
	ck_assert_uint_eq(taken, 0);
	write_pages(second, cache, &looked, &taken);
	ck_assert_uint_gt(looked, 1);
	ck_assert_uint_eq(taken, looked);
	assert_same_pages(plain, first);
	assert_same_pages(plain, second);
	ck_assert_int_gt(spoil_entries(cache), 1);
	write_pages(spoiled, cache, &looked, &taken);
	ck_assert_uint_eq(taken, 0);
	assert_same_pages(plain, spoiled);
	synth_rmdir(cache);
}
END_TEST

Suite *pinball_chunk_cache_suite(void)
{
	Suite *s = suite_create("pinball_chunk_cache");
	TCase *tc = tcase_create("chunk_cache");
	tcase_add_checked_fixture(tc, fixture_setup, fixture_teardown);
	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, a_writer_takes_the_chunks_another_packed);
	suite_add_tcase(s, tc);
	return s;
}

/* Truncated and bit-flipped parts: refused with one line naming the part and an offset,
 * by pinball_verify and by the streaming part reader itself. Built with ASan and UBSan
 * (library pinball_format_asan), so "never a crash" is checked too. */
#include <check.h>
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fixture.h"
#include "meta_edit.h"
#include "part_reader.h"
#include "pinball.h"
#include "pinball.pb-c.h"
#include "pinball_tests.h"
#include "synth.h"

struct part_file {
	char name[64]; /* "pages", "events.1000", "meta" */
	char path[512];
	uint8_t *bytes;
	size_t size;
};

static struct part_file parts[16];
static size_t nparts;

static void load_parts(void)
{
	DIR *d = opendir(test_dir);
	struct dirent *e;
	nparts = 0;
	while ((e = readdir(d)) && nparts < 16) {
		if (strncmp(e->d_name, "run.0.", 6) != 0)
			continue;
		struct part_file *p = &parts[nparts++];
		snprintf(p->name, sizeof p->name, "%s", e->d_name + 6);
		snprintf(p->path, sizeof p->path, "%s/%s", test_dir, e->d_name);
		FILE *f = fopen(p->path, "rb");
		fseek(f, 0, SEEK_END);
		p->size = (size_t)ftell(f);
		rewind(f);
		p->bytes = malloc(p->size);
		ck_assert_uint_eq(fread(p->bytes, 1, p->size, f), p->size);
		fclose(f);
	}
	closedir(d);
}

static void setup(void)
{
	fixture_setup_synth();
	load_parts();
	ck_assert_uint_eq(nparts, 6 + SYNTH_THREADS);
}

static void teardown(void)
{
	for (size_t i = 0; i < nparts; i++)
		free(parts[i].bytes);
	fixture_teardown();
}

static void put_file(const struct part_file *p, const uint8_t *bytes, size_t size)
{
	int fd = open(p->path, O_WRONLY | O_TRUNC);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, bytes, size), (ssize_t)size);
	close(fd);
}

/* The error must be one line naming the part's file and an offset. */
static void assert_clear_error(const char *err, const struct part_file *p, const char *what,
			       size_t where)
{
	ck_assert_msg(strstr(err, p->path) && strstr(err, ": offset ") && !strchr(err, '\n'),
		      "%s of %s at %zu: unclear error '%s'", what, p->name, where, err);
}

/* Both the whole-pinball check and a bare stream over the part must refuse it. */
static void assert_refused(const struct part_file *p, const char *what, size_t where)
{
	char err[PINBALL_ERR_MAX];
	ck_assert_msg(pinball_verify(test_base, err) != 0, "%s of %s at %zu accepted", what,
		      p->name, where);
	assert_clear_error(err, p, what, where);
	struct part_reader pr;
	int got = part_reader_open(&pr, p->path, p->name, NULL, err);
	const uint8_t *rec;
	size_t len;
	while (got == 0 && part_reader_next(&pr, &rec, &len) == 1)
		;
	got = pr.ended ? 0 : -1;
	part_reader_close(&pr);
	ck_assert_msg(got != 0, "part reader accepted the %s of %s at %zu", what, p->name, where);
	assert_clear_error(err, p, what, where);
}

/* Every offset in the first `dense` bytes, then about `spread` more across the file. */
static size_t next_offset(size_t off, size_t size, size_t dense, size_t spread)
{
	if (off < dense)
		return off + 1;
	size_t step = size / spread;
	return off + (step ? step : 1);
}

START_TEST(truncations_are_refused)
{
	char err[PINBALL_ERR_MAX];
	ck_assert_msg(pinball_verify(test_base, err) == 0, "%s", err);
	size_t tried = 0;
	for (size_t i = 0; i < nparts; i++) {
		const struct part_file *p = &parts[i];
		for (size_t len = 0; len < p->size; len = next_offset(len, p->size, 200, 150)) {
			put_file(p, p->bytes, len);
			assert_refused(p, "truncation", len);
			tried++;
		}
		put_file(p, p->bytes, p->size - 1);
		assert_refused(p, "truncation", p->size - 1);
		put_file(p, p->bytes, p->size);
	}
	ck_assert_msg(pinball_verify(test_base, err) == 0, "%s", err);
	fprintf(stderr, "truncations: %zu refused\n", tried);
}
END_TEST

START_TEST(flipped_bytes_are_refused)
{
	char err[PINBALL_ERR_MAX];
	size_t tried = 0;
	for (size_t i = 0; i < nparts; i++) {
		const struct part_file *p = &parts[i];
		uint8_t *copy = malloc(p->size);
		memcpy(copy, p->bytes, p->size);
		for (size_t off = 0; off < p->size; off = next_offset(off, p->size, 2048, 300)) {
			uint8_t mask = (uint8_t)(1u << (off % 8)) | (off % 3 ? 0 : 0x80);
			copy[off] ^= mask;
			put_file(p, copy, p->size);
			assert_refused(p, "flipped byte", off);
			copy[off] ^= mask;
			tried++;
		}
		put_file(p, p->bytes, p->size);
		free(copy);
	}
	ck_assert_msg(pinball_verify(test_base, err) == 0, "%s", err);
	fprintf(stderr, "flipped bytes: %zu refused\n", tried);
}
END_TEST

START_TEST(appended_bytes_are_refused)
{
	for (size_t i = 0; i < nparts; i++) {
		const struct part_file *p = &parts[i];
		uint8_t *longer = calloc(1, p->size + 20);
		memcpy(longer, p->bytes, p->size);
		put_file(p, longer, p->size + 20);
		assert_refused(p, "20 appended bytes", p->size);
		put_file(p, p->bytes, p->size);
		free(longer);
	}
}
END_TEST

/* P.meta rewritten, intact as a part, with a header that names another major version. */
START_TEST(other_major_versions_are_refused)
{
	char err[PINBALL_ERR_MAX];
	uint8_t id[16];
	Pinball__Meta *meta = meta_read(test_base, id);
	meta->header->format_major = PINBALL_FORMAT_MAJOR + 1;
	meta_write(test_base, id, meta);
	pinball__meta__free_unpacked(meta, NULL);

	ck_assert_int_ne(pinball_verify(test_base, err), 0);
	ck_assert_msg(strstr(err, "a format version this reader does not read"), "%s", err);
}
END_TEST

Suite *pinball_corruption_suite(void)
{
	Suite *s = suite_create("pinball_corruption");
	TCase *tc = tcase_create("corruption");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 240);
	tcase_add_test(tc, truncations_are_refused);
	tcase_add_test(tc, flipped_bytes_are_refused);
	tcase_add_test(tc, appended_bytes_are_refused);
	tcase_add_test(tc, other_major_versions_are_refused);
	suite_add_tcase(s, tc);
	return s;
}

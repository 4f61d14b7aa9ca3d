/* Round trips through the writer and the reader, and what a pinball looks like on disk. */
#include <check.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "chunk_helper.h"
#include "fixture.h"
#include "page_pattern.h"
#include "pinball.h"
#include "pinball_tests.h"
#include "synth.h"

static struct pinball_header small_header(void)
{
	return (struct pinball_header){.tool_version = "test", .arch = "x86_64", .page_size = 4096};
}

/* A writer of test_base with a small header. */
static struct pinball_writer *new_writer(void)
{
	char err[PINBALL_ERR_MAX];
	struct pinball_header h = small_header();
	struct pinball_writer *w = pinball_writer_create(test_base, &h, err);
	ck_assert_msg(w != NULL, "%s", err);
	return w;
}

START_TEST(synthetic_pinball_round_trips)
{
	char err[PINBALL_ERR_MAX];
	ck_assert_msg(synth_write(test_base, err) == 0, "%s", err);
	const char *bad = synth_check(test_base);
	ck_assert_msg(bad == NULL, "%s", bad);
	ck_assert_msg(pinball_verify(test_base, err) == 0, "%s", err);
	ck_assert_int_eq(synth_count_files(test_dir, ".tmp-"), 0);
	/* meta, threads, memmap, pages, schedule, end and one events part per thread */
	ck_assert_int_eq(synth_count_files(test_dir, NULL), 6 + SYNTH_THREADS);
}
END_TEST

START_TEST(empty_pinball_round_trips)
{
	char err[PINBALL_ERR_MAX];
	struct pinball_writer *w = new_writer();
	ck_assert_int_eq(pinball_writer_finish(w, NULL), 0);
	pinball_writer_free(w);
	ck_assert_msg(pinball_verify(test_base, err) == 0, "%s", err);
	struct pinball_reader *r = pinball_reader_open(test_base, err);
	ck_assert_msg(r != NULL, "%s", err);
	ck_assert_uint_eq(pinball_reader_part_count(r), 5);
	ck_assert_uint_eq(pinball_reader_event_tids(r, NULL, 0), 0);
	ck_assert_str_eq(pinball_reader_header(r)->tool_version, "test");
	ck_assert_str_eq(pinball_reader_region_stop(r)->spec, "");
	struct pinball_cursor *c = pinball_cursor_open(r, "pages", err);
	struct pinball_page p;
	ck_assert_int_eq(pinball_next_page(c, &p), 0);
	ck_assert_int_eq(pinball_next_page(c, &p), 0); /* stays at the end */
	pinball_cursor_close(c);
	ck_assert_ptr_null(pinball_cursor_open(r, "events.1", err));
	ck_assert_msg(strstr(err, "no part named 'events.1'"), "%s", err);
	pinball_reader_close(r);
}
END_TEST

START_TEST(zero_pages_are_stored_compactly)
{
	char err[PINBALL_ERR_MAX];
	struct pinball_header h = small_header();
	struct pinball_writer *w = pinball_writer_create(test_base, &h, err);
	static const uint8_t zero[4096];
	for (uint64_t i = 0; i < 100000; i++)
		ck_assert_int_eq(pinball_writer_add_page(w, 0x10000000 + i * 4096, 3, zero), 0);
	ck_assert_int_eq(pinball_writer_finish(w, NULL), 0);
	pinball_writer_free(w);
	struct pinball_reader *r = pinball_reader_open(test_base, err);
	ck_assert_msg(r != NULL, "%s", err);
	ck_assert_uint_eq(pinball_reader_summary(r)->zero_pages, 100000);
	const struct pinball_part_info *pi = pinball_reader_part(r, 2);
	ck_assert_str_eq(pi->name, "pages");
	ck_assert_uint_eq(pi->records, 1);
	ck_assert_uint_lt(pi->file_bytes, 200); /* 400 MB of zeroes in one record */
	struct pinball_cursor *c = pinball_cursor_open(r, "pages", err);
	struct pinball_page p;
	ck_assert_int_eq(pinball_next_page(c, &p), 1);
	ck_assert_ptr_null(p.data);
	ck_assert_uint_eq(p.npages, 100000);
	ck_assert_uint_eq(p.addr, 0x10000000);
	ck_assert_int_eq(pinball_next_page(c, &p), 0);
	pinball_cursor_close(c);
	pinball_reader_close(r);
}
END_TEST

/* A run of all-zero pages over two map entries that follow each other (the writer makes
 * one record of consecutive zero pages of the same protection: a fat region start over two
 * adjacent anonymous mappings) is in the memory map; one over a gap between them is not. */
START_TEST(zero_run_across_adjacent_entries_verifies)
{
	char err[PINBALL_ERR_MAX];
	static const uint8_t zero[4096];
	for (int gap = 0; gap <= 1; gap++) {
		struct pinball_writer *w = new_writer();
		uint64_t second = 0x10004000 + (uint64_t)gap * 0x1000;
		struct pinball_map_entry a = {0x10000000, 0x10004000, 3, 0x22, 0, NULL};
		struct pinball_map_entry b = {second, second + 0x4000, 3, 0x22, 0, NULL};
		ck_assert_int_eq(pinball_writer_add_map(w, &a), 0);
		ck_assert_int_eq(pinball_writer_add_map(w, &b), 0);
		for (uint64_t at = 0x10002000; at < second + 0x2000; at += 4096) /* one record */
			ck_assert_int_eq(pinball_writer_add_page(w, at, 3, zero), 0);
		ck_assert_int_eq(pinball_writer_finish(w, NULL), 0);
		pinball_writer_free(w);
		int bad = pinball_verify(test_base, err);
		if (gap)
			ck_assert_msg(bad && strstr(err, "is outside the memory map"), "%s", err);
		else
			ck_assert_msg(!bad, "%s", err);
	}
}
END_TEST

/* Writes `pages` pattern pages, hurried from page `hurry_at` on (two compression levels,
 * and chunks compressed two at a time after it), and finishes the pinball. */
static void write_hurried_pages(uint64_t pages, uint64_t hurry_at)
{
	struct pinball_writer *w = new_writer();
	static uint8_t page[4096];
	for (uint64_t i = 0; i < pages; i++) {
		if (i == hurry_at)
			pinball_writer_hurry(w);
		page_pattern(page, sizeof page, i);
		ck_assert_int_eq(pinball_writer_add_page(w, 0x10000000 + i * 8192, 3, page), 0);
	}
	ck_assert_int_eq(pinball_writer_finish(w, NULL), 0);
	pinball_writer_free(w);
}

/* The pages read back as written, in order, in more than `min_chunks` chunks. */
static void check_pattern_pages(uint64_t pages, uint32_t min_chunks)
{
	char err[PINBALL_ERR_MAX];
	struct pinball_reader *r = pinball_reader_open(test_base, err);
	ck_assert_msg(r != NULL, "%s", err);
	struct pinball_cursor *c = pinball_cursor_open(r, "pages", err);
	struct pinball_page p;
	static uint8_t page[4096];
	for (uint64_t i = 0; i < pages; i++) {
		ck_assert_int_eq(pinball_next_page(c, &p), 1);
		ck_assert_uint_eq(p.addr, 0x10000000 + i * 8192);
		page_pattern(page, sizeof page, i);
		ck_assert(p.data && memcmp(p.data, page, sizeof page) == 0);
	}
	ck_assert_int_eq(pinball_next_page(c, &p), 0);
	pinball_cursor_close(c);
	ck_assert_uint_gt(pinball_reader_part(r, 2)->chunks, min_chunks);
	pinball_reader_close(r);
}

/* Pages written before and after pinball_writer_hurry read back as written, the helper
 * thread having compressed some of the chunks after it. */
START_TEST(hurried_pages_round_trip)
{
	enum { PAGES = 1000, HURRY_AT = 100 }; /* 14 chunks, 12 of them hurried */
	unsigned long helped = chunk_helper_chunks();
	write_hurried_pages(PAGES, HURRY_AT);
	ck_assert_uint_ge(chunk_helper_chunks(), helped + 4);
	check_pattern_pages(PAGES, 12);
}
END_TEST

/* A writer freed while the helper compresses one of its chunks leaves nothing behind. */
START_TEST(hurried_writer_freed_unfinished_leaves_nothing)
{
	struct pinball_writer *w = new_writer();
	pinball_writer_hurry(w);
	static uint8_t page[4096];
	for (uint64_t i = 0; i < 200; i++) {
		page_pattern(page, sizeof page, i);
		ck_assert_int_eq(pinball_writer_add_page(w, i * 4096, 3, page), 0);
	}
	pinball_writer_free(w);
	ck_assert_int_eq(synth_count_files(test_dir, NULL), 0);
}
END_TEST

/* A forked child has no copy of its parent's helper thread: it starts its own. */
START_TEST(hurried_writer_in_a_forked_child)
{
	write_hurried_pages(300, 0); /* (the parent's helper is running) */
	pid_t child = fork();
	ck_assert_int_ge(child, 0);
	if (child == 0) {
		alarm(20); /* (a child waiting for a helper that is not there would hang) */
		unsigned long helped = chunk_helper_chunks();
		write_hurried_pages(300, 0);
		_exit(chunk_helper_chunks() > helped ? 0 : 1);
	}
	int status;
	ck_assert_int_eq(waitpid(child, &status, 0), child);
	ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0, "child status %#x", status);
	check_pattern_pages(300, 3);
}
END_TEST

START_TEST(unfinished_writer_leaves_nothing)
{
	char err[PINBALL_ERR_MAX];
	struct pinball_header h = small_header();
	struct pinball_writer *w = pinball_writer_create(test_base, &h, err);
	struct pinball_slice s = {1, 2};
	ck_assert_int_eq(pinball_writer_add_slice(w, &s), 0);
	ck_assert_int_gt(synth_count_files(test_dir, ".tmp-"), 0);
	pinball_writer_free(w);
	ck_assert_int_eq(synth_count_files(test_dir, NULL), 0);
	ck_assert_ptr_null(pinball_reader_open(test_base, err));
	ck_assert_msg(strstr(err, "run.0.meta: cannot open: No such file"), "%s", err);
}
END_TEST

START_TEST(killed_writer_leaves_no_complete_looking_pinball)
{
	pid_t child = fork();
	ck_assert_int_ge(child, 0);
	if (child == 0) {
		char err[PINBALL_ERR_MAX];
		struct pinball_header h = small_header();
		struct pinball_writer *w = pinball_writer_create(test_base, &h, err);
		static uint8_t page[4096];
		for (uint64_t i = 0; i < 3000; i++) {
			memset(page, (int)(i | 1), sizeof page);
			pinball_writer_add_page(w, i * 4096, 3, page);
		}
		raise(SIGKILL); /* before finish: as if the logger were killed */
		_exit(0);
	}
	int status;
	ck_assert_int_eq(waitpid(child, &status, 0), child);
	ck_assert(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
	ck_assert_int_eq(synth_count_files(test_dir, ".meta"), 0);
	ck_assert_int_eq(synth_count_files(test_dir, NULL), synth_count_files(test_dir, ".tmp-"));
	char err[PINBALL_ERR_MAX];
	ck_assert_int_ne(pinball_verify(test_base, err), 0);
	ck_assert_msg(strstr(err, "run.0: unfinished pinball (0 parts, 5 temporary files, no "),
		      "%s", err);
}
END_TEST

START_TEST(rewriting_a_pinball_replaces_it)
{
	char err[PINBALL_ERR_MAX];
	ck_assert_msg(synth_write(test_base, err) == 0, "%s", err);
	struct pinball_reader *r = pinball_reader_open(test_base, err);
	uint8_t first_id[PINBALL_ID_SIZE];
	memcpy(first_id, pinball_reader_id(r), sizeof first_id);
	pinball_reader_close(r);
	ck_assert_msg(synth_write(test_base, err) == 0, "%s", err);
	r = pinball_reader_open(test_base, err);
	ck_assert_msg(r != NULL, "%s", err);
	ck_assert(memcmp(first_id, pinball_reader_id(r), sizeof first_id) != 0);
	pinball_reader_close(r);
	ck_assert_msg(pinball_verify(test_base, err) == 0, "%s", err);
}
END_TEST

START_TEST(parts_of_another_pinball_are_refused)
{
	char err[PINBALL_ERR_MAX], *other, *cmd;
	ck_assert_int_ge(asprintf(&other, "%s/other", test_dir), 0);
	ck_assert_msg(synth_write(test_base, err) == 0, "%s", err);
	ck_assert_msg(synth_write(other, err) == 0, "%s", err);
	ck_assert_int_ge(asprintf(&cmd, "cp %s.schedule %s.schedule", other, test_base), 0);
	ck_assert_int_eq(system(cmd), 0);
	ck_assert_ptr_null(pinball_reader_open(test_base, err));
	ck_assert_msg(strstr(err, "run.0.schedule: offset 16: pinball id differs"), "%s", err);
	free(cmd);
	free(other);
}
END_TEST

Suite *pinball_roundtrip_suite(void)
{
	Suite *s = suite_create("pinball_roundtrip");
	TCase *tc = tcase_create("roundtrip");
	tcase_add_checked_fixture(tc, fixture_setup, fixture_teardown);
	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, synthetic_pinball_round_trips);
	tcase_add_test(tc, empty_pinball_round_trips);
	tcase_add_test(tc, zero_pages_are_stored_compactly);
	tcase_add_test(tc, zero_run_across_adjacent_entries_verifies);
	tcase_add_test(tc, hurried_pages_round_trip);
	tcase_add_test(tc, hurried_writer_freed_unfinished_leaves_nothing);
	tcase_add_test(tc, hurried_writer_in_a_forked_child);
	tcase_add_test(tc, unfinished_writer_leaves_nothing);
	tcase_add_test(tc, killed_writer_leaves_no_complete_looking_pinball);
	tcase_add_test(tc, rewriting_a_pinball_replaces_it);
	tcase_add_test(tc, parts_of_another_pinball_are_refused);
	suite_add_tcase(s, tc);
	return s;
}

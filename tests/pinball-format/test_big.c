/* 1 GiB of pages written and read back with bounded memory. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "page_pattern.h"
#include "pinball.h"
#include "pinball_tests.h"
#include "synth.h"

#define BIG_PAGES (1u << 18) /* 1 GiB of 4 KiB pages */
#define RSS_LIMIT_KIB (64u << 10)

/* Peak resident set of this process, from /proc/self/status. */
static long peak_rss_kib(void)
{
	FILE *f = fopen("/proc/self/status", "r");
	char line[256];
	long kib = -1;
	while (f && fgets(line, sizeof line, f))
		if (sscanf(line, "VmHWM: %ld kB", &kib) == 1)
			break;
	if (f)
		fclose(f);
	return kib;
}

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

START_TEST(one_gib_of_pages_round_trips_in_bounded_memory)
{
	char *dir = synth_tmpdir(), *base, err[PINBALL_ERR_MAX];
	ck_assert_int_ge(asprintf(&base, "%s/big", dir), 0);
	struct pinball_header h = {.tool_version = "test", .page_size = 4096};
	static uint8_t page[4096], want[4096];
	double t0 = now();
	struct pinball_writer *w = pinball_writer_create(base, &h, err);
	ck_assert_msg(w != NULL, "%s", err);
	for (uint32_t i = 0; i < BIG_PAGES; i++) {
		page_pattern(page, sizeof page, i);
		if (pinball_writer_add_page(w, 0x100000000u + (uint64_t)i * 4096, 3, page) < 0)
			ck_abort_msg("%s", pinball_writer_error(w));
	}
	ck_assert_msg(pinball_writer_finish(w, NULL) == 0, "%s", pinball_writer_error(w));
	pinball_writer_free(w);
	double t1 = now();

	struct pinball_reader *r = pinball_reader_open(base, err);
	ck_assert_msg(r != NULL, "%s", err);
	struct pinball_cursor *c = pinball_cursor_open(r, "pages", err);
	ck_assert_msg(c != NULL, "%s", err);
	struct pinball_page p;
	uint32_t n = 0;
	int got;
	while ((got = pinball_next_page(c, &p)) == 1) {
		page_pattern(want, sizeof want, n);
		ck_assert(p.data && p.addr == 0x100000000u + (uint64_t)n * 4096);
		ck_assert(memcmp(p.data, want, sizeof want) == 0);
		n++;
	}
	ck_assert_msg(got == 0, "%s", pinball_cursor_error(c));
	ck_assert_uint_eq(n, BIG_PAGES);
	const struct pinball_part_info *pi = pinball_reader_part(r, 2);
	double t2 = now();
	fprintf(stderr,
		"1 GiB of pages: write %.2f s, read+check %.2f s, stored %.1f MiB "
		"(ratio %.2f), peak RSS %ld KiB\n",
		t1 - t0, t2 - t1, (double)pi->file_bytes / (1 << 20),
		(double)pi->raw_bytes / (double)pi->stored_bytes, peak_rss_kib());
	pinball_cursor_close(c);
	pinball_reader_close(r);
	long rss = peak_rss_kib();
	ck_assert_int_gt(rss, 0);
	ck_assert_msg(rss < RSS_LIMIT_KIB, "peak RSS %ld KiB", rss);
	synth_rmdir(dir);
	free(base);
}
END_TEST

Suite *pinball_big_suite(void)
{
	Suite *s = suite_create("pinball_big");
	TCase *tc = tcase_create("big");
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, one_gib_of_pages_round_trips_in_bounded_memory);
	suite_add_tcase(s, tc);
	return s;
}

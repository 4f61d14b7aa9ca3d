/* I/O errors: reported as one clear line naming the file, and no pinball left behind. */
#include <check.h>
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/resource.h>

#include "fixture.h"
#include "pinball.h"
#include "pinball_tests.h"
#include "synth.h"

/* Writes pages until something fails; returns the writer's error (copied to err). */
static void write_until_failure(char err[PINBALL_ERR_MAX])
{
	struct pinball_header h = {.tool_version = "test", .page_size = 4096};
	struct pinball_writer *w = pinball_writer_create(test_base, &h, err);
	ck_assert_msg(w != NULL, "%s", err);
	static uint8_t page[4096];
	int ok = 0;
	for (uint64_t i = 0; ok == 0 && i < 100000; i++) {
		/* incompressible, so the file grows as fast as the data */
		for (size_t k = 0; k < sizeof page; k += 8) {
			uint64_t v = (i * 4096 + k + 1) * 0x9e3779b97f4a7c15u;
			memcpy(page + k, &v, 8);
		}
		ok = pinball_writer_add_page(w, i * 4096, 3, page);
	}
	if (ok == 0)
		ok = pinball_writer_finish(w, NULL);
	ck_assert_int_ne(ok, 0);
	snprintf(err, PINBALL_ERR_MAX, "%s", pinball_writer_error(w));
	/* a failed writer refuses everything after */
	ck_assert_int_ne(pinball_writer_add_page(w, 0, 3, page), 0);
	ck_assert_int_ne(pinball_writer_finish(w, NULL), 0);
	pinball_writer_free(w);
	ck_assert_msg(strchr(err, '\n') == NULL, "more than one line: %s", err);
	ck_assert_int_eq(synth_count_files(test_dir, NULL), 0); /* temporaries removed */
}

START_TEST(file_size_limit_is_reported_as_efbig)
{
	struct rlimit lim = {1 << 20, 1 << 20};
	ck_assert_int_eq(setrlimit(RLIMIT_FSIZE, &lim), 0);
	signal(SIGXFSZ, SIG_IGN);
	char err[PINBALL_ERR_MAX];
	write_until_failure(err);
	ck_assert_msg(strstr(err, "run.0.pages.tmp-") && strstr(err, ": write failed at offset ") &&
			  strstr(err, "File too large"),
		      "%s", err);
}
END_TEST

START_TEST(full_filesystem_is_reported_as_enospc)
{
	/* A 1 MiB tmpfs in a private mount namespace. Needs root (CAP_SYS_ADMIN). */
	if (unshare(CLONE_NEWNS) < 0 || mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0 ||
	    mount("tmpfs", test_dir, "tmpfs", 0, "size=1m") < 0) {
		fprintf(stderr,
			"full_filesystem_is_reported_as_enospc: SKIPPED, cannot mount a "
			"tmpfs here (%s); file_size_limit_is_reported_as_efbig still covers "
			"write errors\n",
			strerror(errno));
		return;
	}
	char err[PINBALL_ERR_MAX];
	write_until_failure(err);
	ck_assert_msg(strstr(err, "run.0.") && strstr(err, "No space left on device"), "%s", err);
	umount(test_dir);
}
END_TEST

START_TEST(missing_directory_is_reported)
{
	char err[PINBALL_ERR_MAX], *bad;
	ck_assert_int_ge(asprintf(&bad, "%s/no/such/test_dir/run", test_dir), 0);
	struct pinball_header h = {.page_size = 4096};
	ck_assert_ptr_null(pinball_writer_create(bad, &h, err));
	ck_assert_msg(strstr(err, "/no/such/test_dir/run.threads.tmp-") &&
			  strstr(err, "cannot create: No such file or directory"),
		      "%s", err);
	free(bad);
}
END_TEST

START_TEST(oversized_record_is_refused)
{
	char err[PINBALL_ERR_MAX];
	struct pinball_header h = {.page_size = 4096};
	struct pinball_writer *w = pinball_writer_create(test_base, &h, err);
	size_t len = (64u << 20) + 1;
	uint8_t *big = calloc(1, len);
	struct pinball_mem_write mw = {0x1000, big, len};
	struct pinball_event e = {.icount = 1, .kind = PINBALL_EV_SYSCALL};
	e.syscall.nwrites = 1;
	e.syscall.writes = &mw;
	ck_assert_int_ne(pinball_writer_add_event(w, 1, &e), 0);
	ck_assert_msg(strstr(pinball_writer_error(w), "exceeds the 67108864-byte limit"), "%s",
		      pinball_writer_error(w));
	free(big);
	pinball_writer_free(w);
}
END_TEST

Suite *pinball_writer_errors_suite(void)
{
	Suite *s = suite_create("pinball_writer_errors");
	TCase *tc = tcase_create("errors");
	tcase_add_checked_fixture(tc, fixture_setup, fixture_teardown);
	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, file_size_limit_is_reported_as_efbig);
	tcase_add_test(tc, full_filesystem_is_reported_as_enospc);
	tcase_add_test(tc, missing_directory_is_reported);
	tcase_add_test(tc, oversized_record_is_refused);
	suite_add_tcase(s, tc);
	return s;
}

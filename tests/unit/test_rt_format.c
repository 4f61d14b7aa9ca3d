#include <check.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "rt_format.h"
#include "unit_suites.h"

/* Formats with rt_format and with glibc's snprintf; both must agree byte for byte. */
#define EXPECT_LIKE_SNPRINTF(...)                                                                  \
	do {                                                                                       \
		char ours[256], theirs[256];                                                       \
		size_t n = rt_format(ours, sizeof ours, __VA_ARGS__);                              \
		int m = snprintf(theirs, sizeof theirs, __VA_ARGS__);                              \
		ck_assert_str_eq(ours, theirs);                                                    \
		ck_assert_uint_eq(n, (size_t)m);                                                   \
	} while (0)

START_TEST(conversions_match_snprintf)
{
	EXPECT_LIKE_SNPRINTF("%d %d %d", 0, -1, 2147483647);
	EXPECT_LIKE_SNPRINTF("%d", (int)INT32_MIN);
	EXPECT_LIKE_SNPRINTF("%ld %lld", (long)INT64_MIN, (long long)INT64_MAX);
	EXPECT_LIKE_SNPRINTF("%u %lu %zu", 4294967295u, 18446744073709551615ul, (size_t)7);
	EXPECT_LIKE_SNPRINTF("%x %X %lx", 0xdeadbeefu, 0xabcu, 0x123456789abcdef0ul);
	EXPECT_LIKE_SNPRINTF("%p %p", (void *)0x7fff1234, (void *)0x1);
	EXPECT_LIKE_SNPRINTF("%s|%c|%%", "text", 'z');
	EXPECT_LIKE_SNPRINTF("%hd %hu", (short)-5, (unsigned short)65535);
	EXPECT_LIKE_SNPRINTF("%i", -42);
}
END_TEST

START_TEST(widths_and_flags_match_snprintf)
{
	EXPECT_LIKE_SNPRINTF("[%5d][%-5d][%05d]", 42, 42, 42);
	EXPECT_LIKE_SNPRINTF("[%05d][%6d]", -42, -42);
	EXPECT_LIKE_SNPRINTF("[%016lx][%8x][%-8x]", 0xbeeful, 0x1fu, 0x1fu);
	EXPECT_LIKE_SNPRINTF("[%10s][%-10s][%2s]", "ab", "ab", "abcdef");
	EXPECT_LIKE_SNPRINTF("[%.3s][%*d][%-*d]", "abcdef", 6, 7, 6, 7);
	EXPECT_LIKE_SNPRINTF("[%.*s]", 2, "xyz");
	EXPECT_LIKE_SNPRINTF("[%3c][%-3c]", 'a', 'b');
	EXPECT_LIKE_SNPRINTF("[%18p]", (void *)0xabc);
}
END_TEST

START_TEST(truncates_like_snprintf)
{
	char buf[8];
	memset(buf, 'X', sizeof buf);
	size_t n = rt_format(buf, sizeof buf, "%s-%d", "abcdef", 12345);
	ck_assert_uint_eq(n, 12);
	ck_assert_str_eq(buf, "abcdef-");

	n = rt_format(buf, 0, "%d", 99);
	ck_assert_uint_eq(n, 2);
	ck_assert_int_eq(buf[0], 'a');
}
END_TEST

START_TEST(null_string_and_unknown_conversion)
{
	char buf[64];
	const char *volatile missing = NULL;
	rt_format(buf, sizeof buf, "%s", missing);
	ck_assert_str_eq(buf, "(null)");
	/* An unknown conversion is copied literally rather than consuming arguments.
	 * (Through a variable, so the compiler's format check lets the bad formats by.) */
	const char *volatile unknown = "a%qb %d";
	rt_format(buf, sizeof buf, unknown, 5);
	ck_assert_str_eq(buf, "a%qb 5");
	const char *volatile trailing = "trailing %";
	rt_format(buf, sizeof buf, trailing);
	ck_assert_str_eq(buf, "trailing %");
}
END_TEST

START_TEST(dprintf_writes_long_output_to_fd)
{
	int fds[2];
	ck_assert_int_eq(pipe(fds), 0);
	char big[2000];
	memset(big, 'q', sizeof big - 1);
	big[sizeof big - 1] = '\0';
	long n = rt_dprintf(fds[1], "<%s>%d", big, 7);
	ck_assert_int_eq(n, 1999 + 3);
	close(fds[1]);

	char got[4096];
	size_t total = 0;
	ssize_t r;
	while ((r = read(fds[0], got + total, sizeof got - total)) > 0)
		total += (size_t)r;
	close(fds[0]);
	ck_assert_uint_eq(total, 2002);
	ck_assert_int_eq(got[0], '<');
	ck_assert_int_eq(got[1999], 'q');
	ck_assert_int_eq(got[2000], '>');
	ck_assert_int_eq(got[2001], '7');
}
END_TEST

START_TEST(dprintf_reports_write_error)
{
	int fd = dup(1);
	close(fd);
	ck_assert_int_eq(rt_dprintf(fd, "x%d", 1), -EBADF);
}
END_TEST

Suite *rt_format_suite(void)
{
	Suite *s = suite_create("rt_format");
	TCase *tc = tcase_create("core");
	tcase_add_test(tc, conversions_match_snprintf);
	tcase_add_test(tc, widths_and_flags_match_snprintf);
	tcase_add_test(tc, truncates_like_snprintf);
	tcase_add_test(tc, null_string_and_unknown_conversion);
	tcase_add_test(tc, dprintf_writes_long_output_to_fd);
	tcase_add_test(tc, dprintf_reports_write_error);
	suite_add_tcase(s, tc);
	return s;
}

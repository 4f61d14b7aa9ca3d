#include <check.h>
#include <stdint.h>

#include "rt_string.h"
#include "unit_suites.h"

START_TEST(parse_u64_accepts_decimal_and_hex)
{
	uint64_t v = 0;
	ck_assert(rt_parse_u64("0", &v) && v == 0);
	ck_assert(rt_parse_u64("1000000", &v) && v == 1000000);
	ck_assert(rt_parse_u64("0x11223344", &v) && v == 0x11223344);
	ck_assert(rt_parse_u64("0XfF", &v) && v == 255);
	ck_assert(rt_parse_u64("18446744073709551615", &v) && v == UINT64_MAX);
	ck_assert(rt_parse_hex_u64("deadBEEF", &v) && v == 0xdeadbeef);
	ck_assert(rt_parse_hex_u64("0x10", &v) && v == 16);
}
END_TEST

START_TEST(parse_u64_rejects_garbage_and_overflow)
{
	uint64_t v = 77;
	ck_assert(!rt_parse_u64("", &v));
	ck_assert(!rt_parse_u64("0x", &v));
	ck_assert(!rt_parse_u64("12a", &v));
	ck_assert(!rt_parse_u64("-1", &v));
	ck_assert(!rt_parse_u64(" 1", &v));
	ck_assert(!rt_parse_u64("18446744073709551616", &v));
	ck_assert(!rt_parse_hex_u64("10000000000000000", &v));
	ck_assert(!rt_parse_hex_u64("xyz", &v));
	ck_assert_int_eq(v, 77);
}
END_TEST

START_TEST(strlcpy_truncates_and_terminates)
{
	char buf[4];
	ck_assert_uint_eq(rt_strlcpy(buf, "abcdef", sizeof buf), 6);
	ck_assert_str_eq(buf, "abc");
	ck_assert_uint_eq(rt_strlcpy(buf, "ab", sizeof buf), 2);
	ck_assert_str_eq(buf, "ab");
	ck_assert(rt_starts_with("start:icount:100", "start:"));
	ck_assert(!rt_starts_with("sta", "start"));
}
END_TEST

START_TEST(signal_names_round_trip)
{
	char buf[16];
	ck_assert_str_eq(rt_signal_name(11, buf), "SIGSEGV");
	ck_assert_str_eq(rt_signal_name(31, buf), "SIGSYS");
	ck_assert_str_eq(rt_signal_name(34, buf), "SIGRT2");
	for (int sig = 1; sig <= 64; sig++)
		ck_assert_int_eq(rt_signal_number(rt_signal_name(sig, buf)), sig);
	ck_assert_int_eq(rt_signal_number("SIGRT0x1"), 0);
	ck_assert_int_eq(rt_signal_number("SIGRT33"), 0);
	ck_assert_int_eq(rt_signal_number("SEGV"), 0);
	ck_assert_int_eq(rt_signal_number("0"), 0);
}
END_TEST

Suite *rt_string_suite(void)
{
	Suite *s = suite_create("rt_string");
	TCase *tc = tcase_create("core");
	tcase_add_test(tc, parse_u64_accepts_decimal_and_hex);
	tcase_add_test(tc, parse_u64_rejects_garbage_and_overflow);
	tcase_add_test(tc, strlcpy_truncates_and_terminates);
	tcase_add_test(tc, signal_names_round_trip);
	suite_add_tcase(s, tc);
	return s;
}

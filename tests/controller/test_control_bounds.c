/* Every number of the language, at its bounds: empty digits, overflow and absurd values are
 * refused with the column of the value; the largest sensible values are accepted. */
#include "control_test_util.h"

#include <string.h>

static const struct {
	const char *input, *message;
} refused[] = {
    /* icount: at most 10^18 */
    {"start:icount:1000000000000000001",
     "-control: integer '1000000000000000001' out of range (at most 1000000000000000000) at "
     "column 14"},
    {"start:icount:0x", "-control: missing digits after '0x' at column 14"},
    {"start:icount:0X", "-control: missing digits after '0X' at column 14"},
    /* address: a pc or an image offset within the user address space, never a symbol "0x" */
    {"start:address:0x", "-control: missing digits after '0x' at column 15"},
    {"start:address:0X", "-control: missing digits after '0X' at column 15"},
    {"start:address:123456789012345678901234567890",
     "-control: integer '123456789012345678901234567890' out of range (at most "
     "18446744073709551615) at column 15"},
    {"start:address:18446744073709551616",
     "-control: integer '18446744073709551616' out of range (at most 18446744073709551615) at "
     "column 15"},
    {"start:address:0x10000000000000000",
     "-control: integer '0x10000000000000000' out of range (at most 18446744073709551615) at "
     "column 15"},
    {"start:address:0x100000000000000", "-control: address '0x100000000000000' is beyond the "
					"user address space (at most 0xffffffffffffff) at "
					"column 15"},
    {"start:address:72057594037927936", "-control: address '72057594037927936' is beyond the "
					"user address space (at most 0xffffffffffffff) at "
					"column 15"},
    {"start:address:12ab", "-control: bad integer '12ab' at column 15"},
    {"start:address:libc.so.6+0x", "-control: missing digits after '0x' at column 25"},
    {"start:address:libc.so.6+99999999999999999999",
     "-control: integer '99999999999999999999' out of range (at most 18446744073709551615) at "
     "column 25"},
    {"start:address:app+0x100000000000000", "-control: address '0x100000000000000' is beyond "
					    "the user address space (at most "
					    "0xffffffffffffff) at column 19"},
    /* timeout: at most ten years of seconds (2^64-1 once wrapped around and fired at once) */
    {"stop:timeout:315360001",
     "-control: integer '315360001' out of range (at most 315360000) at column 14"},
    {"stop:timeout:18446744073709551615",
     "-control: integer '18446744073709551615' out of range (at most 315360000) at column 14"},
    {"stop:timeout:99999999999999999999999",
     "-control: integer '99999999999999999999999' out of range (at most 315360000) at column "
     "14"},
    {"stop:timeout:0x", "-control: missing digits after '0x' at column 14"},
    {"stop:timeout:", "-control: missing value for 'timeout' at column 14"},
    /* count<N>, tid<N>, repeat:N */
    {"start:icount:1:count1000000000000000001",
     "-control: integer '1000000000000000001' out of range (at most 1000000000000000000) at "
     "column 21"},
    {"start:icount:1:count0x", "-control: missing digits after '0x' at column 21"},
    {"start:icount:1:tid1024", "-control: integer '1024' out of range (at most 1023) at column "
			       "19"},
    {"start:icount:1:tid0x", "-control: missing digits after '0x' at column 19"},
    {"start:icount:1,repeat:1000000000000000001",
     "-control: integer '1000000000000000001' out of range (at most 1000000000000000000) at "
     "column 23"},
    {"start:icount:1,repeat:0x", "-control: missing digits after '0x' at column 23"},
    /* uniform's three numbers */
    {"uniform:1000000000000000001:1:1",
     "-control: integer '1000000000000000001' out of range (at most 1000000000000000000) at "
     "column 9"},
    {"uniform:800:0x:5", "-control: missing digits after '0x' at column 13"},
    {"uniform:800:500:1000000000000000001",
     "-control: integer '1000000000000000001' out of range (at most 1000000000000000000) at "
     "column 17"},
    /* ssc and itext hex, cpuid and magic numbers */
    {"start:ssc:0x", "-control: missing digits after '0x' at column 11"},
    {"start:ssc:0x112233445", "-control: ssc value '0x112233445' is wider than 32 bits at "
			      "column 11"},
    {"start:itext:0x0f", "-control: bad hex digit 'x' at column 14"},
    {"start:cpuid:0x", "-control: missing digits after '0x' at column 13"},
    {"start:cpuid:1:4294967296",
     "-control: integer '4294967296' out of range (at most 4294967295) at column 15"},
    {"start:magic:0x", "-control: missing digits after '0x' at column 13"},
    {"start:magic:1:0x", "-control: missing digits after '0x' at column 15"},
    {"start:magic:18446744073709551616",
     "-control: integer '18446744073709551616' out of range (at most 18446744073709551615) at "
     "column 13"},
};

START_TEST(refused_value)
{
	ck_assert_str_eq(parse_one_failure(refused[_i].input), refused[_i].message);
}
END_TEST

START_TEST(largest_values_accepted)
{
	struct control_spec *spec = parse_one("stop:timeout:315360000");
	ck_assert_uint_eq(only_alarm(spec)->u.timeout_seconds, CONTROL_TIMEOUT_MAX);
	control_spec_free(spec);

	spec = parse_one("start:icount:1000000000000000000:count1000000000000000000:tid1023");
	const struct control_alarm *a = only_alarm(spec);
	ck_assert_uint_eq(a->u.icount, CONTROL_COUNT_MAX);
	ck_assert_uint_eq(a->count, CONTROL_COUNT_MAX);
	ck_assert_uint_eq(a->tid, CONTROL_TID_MAX);
	control_spec_free(spec);

	spec = parse_one("uniform:1000000000000000000:1000000000000000000:1000000000000000000,"
			 "repeat:1000000000000000000");
	a = only_alarm(spec);
	ck_assert_uint_eq(a->u.uniform.period, CONTROL_COUNT_MAX);
	ck_assert_uint_eq(a->u.uniform.count, CONTROL_COUNT_MAX);
	ck_assert_uint_eq(spec->chains[0].repeat, CONTROL_COUNT_MAX);
	control_spec_free(spec);

	spec = parse_one("start:address:0xffffffffffffff");
	ck_assert_uint_eq(only_alarm(spec)->u.address.pc, CONTROL_ADDRESS_MAX);
	control_spec_free(spec);

	spec = parse_one("start:magic:0xffffffffffffffff:18446744073709551615");
	ck_assert_uint_eq(only_alarm(spec)->u.magic.a, UINT64_MAX);
	ck_assert_uint_eq(only_alarm(spec)->u.magic.b, UINT64_MAX);
	control_spec_free(spec);
}
END_TEST

/* A value starting with a digit is a pc, in decimal too; an image may start with one. */
START_TEST(address_forms_by_first_character)
{
	struct control_spec *spec = parse_one("start:address:4198710");
	ck_assert_int_eq(only_alarm(spec)->u.address.kind, CONTROL_ADDRESS_PC);
	ck_assert_uint_eq(only_alarm(spec)->u.address.pc, 4198710);
	ck_assert_str_eq(only_alarm(spec)->text, "start:address:0x401136");
	control_spec_free(spec);

	spec = parse_one("start:address:7z.so+0x10");
	ck_assert_int_eq(only_alarm(spec)->u.address.kind, CONTROL_ADDRESS_IMAGE_OFFSET);
	ck_assert_str_eq(only_alarm(spec)->u.address.image, "7z.so");
	ck_assert_uint_eq(only_alarm(spec)->u.address.offset, 0x10);
	control_spec_free(spec);
}
END_TEST

/* The legacy knobs keep the bounds of the chains they become, with the knob's own column. */
static const struct {
	const char *knob, *value, *message;
} legacy_refused[] = {
    {"-skip", "1000000000000000001",
     "-skip: integer '1000000000000000001' out of range (at most 1000000000000000000) at "
     "column 1"},
    {"-length", "0x", "-length: missing digits after '0x' at column 1"},
    {"-uniform-skip", "99999999999999999999",
     "-uniform-skip: integer '99999999999999999999' out of range (at most "
     "1000000000000000000) at column 1"},
    {"-uniform-period", "1000000000000000001",
     "-uniform-period: integer '1000000000000000001' out of range (at most "
     "1000000000000000000) at column 1"},
    {"-uniform-length", "0X", "-uniform-length: missing digits after '0X' at column 1"},
    {"-uniform-count", "18446744073709551616",
     "-uniform-count: integer '18446744073709551616' out of range (at most "
     "1000000000000000000) at column 1"},
};

START_TEST(legacy_refused_value)
{
	struct control_spec *spec = control_spec_new();
	struct control_error err;
	ck_assert_int_eq(
	    control_spec_set_knob(spec, legacy_refused[_i].knob, legacy_refused[_i].value, &err),
	    -1);
	ck_assert_str_eq(err.message, legacy_refused[_i].message);
	control_spec_free(spec);
}
END_TEST

START_TEST(legacy_largest_values_accepted)
{
	struct control_spec *spec = control_spec_new();
	struct control_error err;
	const char *max = "1000000000000000000";
	ck_assert_int_eq(control_spec_set_knob(spec, "-skip", max, &err), 0);
	ck_assert_int_eq(control_spec_set_knob(spec, "-length", max, &err), 0);
	ck_assert_int_eq(control_spec_finish(spec, &err), 0);
	ck_assert_str_eq(chain_text(spec, 0),
			 "start:icount:1000000000000000000,stop:icount:1000000000000000000");
	control_spec_free(spec);
}
END_TEST

Suite *control_bounds_suite(void)
{
	Suite *s = suite_create("control_bounds");
	TCase *tc = tcase_create("bounds");
	tcase_add_loop_test(tc, refused_value, 0, (int)(sizeof(refused) / sizeof(refused[0])));
	tcase_add_test(tc, largest_values_accepted);
	tcase_add_test(tc, address_forms_by_first_character);
	tcase_add_loop_test(tc, legacy_refused_value, 0,
			    (int)(sizeof(legacy_refused) / sizeof(legacy_refused[0])));
	tcase_add_test(tc, legacy_largest_values_accepted);
	suite_add_tcase(s, tc);
	return s;
}

/* Every error, word for word: the problem, the column (from 1 in the knob's value) and,
 * for a misspelt word, the nearest known one. */
#include "control_test_util.h"

#include <string.h>

static const struct {
	const char *input, *message;
} errors[] = {
    {"", "-control: empty value"},
    {"start:adress:foo", "-control: unknown alarm type 'adress' at column 7 (did you mean "
			 "'address'?)"},
    {"strat:icount:1", "-control: unknown event 'strat' at column 1 (did you mean 'start'?)"},
    {"begin:icount:1", "-control: unknown event 'begin' at column 1"},
    {"repeat3", "-control: unknown event 'repeat3' at column 1 (did you mean 'repeat'?)"},
    {"icount:100", "-control: missing event before 'icount' at column 1"},
    {":icount:100", "-control: missing event at column 1"},
    {"start", "-control: missing alarm type at column 6"},
    {"start::5", "-control: missing alarm type at column 7"},
    {"start:icount", "-control: missing value for 'icount' at column 13"},
    {"start:icount:", "-control: missing value for 'icount' at column 14"},
    {"start:icount:12x", "-control: bad integer '12x' at column 14"},
    {"start:icount:-1", "-control: bad integer '-1' at column 14"},
    {"start:icount:18446744073709551616",
     "-control: integer '18446744073709551616' out of range (at most 1000000000000000000) "
     "at column 14"},
    {"start:icount:0x10000000000000000",
     "-control: integer '0x10000000000000000' out of range (at most 1000000000000000000) "
     "at column 14"},
    {"start:icount:1:cout3", "-control: unknown modifier 'cout3' at column 16 (did you mean "
			     "'count'?)"},
    {"start:icount:1:frob", "-control: unknown modifier 'frob' at column 16"},
    {"start:icount:1:2", "-control: unexpected value '2' at column 16"},
    {"start:int3:5", "-control: unexpected value '5' at column 12"},
    {"start:icount:1:", "-control: empty field at column 16"},
    {"start:icount:1:tid2:global", "-control: 'tid' and 'global' cannot be combined at "
				   "column 21"},
    {"start:icount:1:global:tid2", "-control: 'tid' and 'global' cannot be combined at "
				   "column 23"},
    {"start:icount:1:count0", "-control: count must be at least 1 at column 21"},
    {"start:icount:1:count", "-control: missing number after 'count' at column 21"},
    {"start:icount:1:tid", "-control: missing number after 'tid' at column 19"},
    {"start:icount:1:tid4294967296",
     "-control: integer '4294967296' out of range (at most 1023) at column 19"},
    {"start:icount:1:count2:count3", "-control: duplicate modifier 'count' at column 23"},
    {"start:icount:1:bcast:bcast", "-control: duplicate modifier 'bcast' at column 22"},
    {"start:icount:1:bcast,bcast", "-control: duplicate modifier 'bcast' at column 22"},
    {"bcast,start:icount:1", "-control: 'bcast' follows no alarm at column 1"},
    {"start:icount:1,bcast:x", "-control: unexpected value 'x' at column 22"},
    {"start:ssc:11zz", "-control: bad hex digit 'z' at column 13"},
    {"start:ssc:112233445", "-control: ssc value '112233445' is wider than 32 bits at "
			    "column 11"},
    {"start:itext:0f0", "-control: itext needs an even number of hex digits at column 13"},
    {"start:itext:0fgh", "-control: bad hex digit 'g' at column 15"},
    {"start:itext:00112233445566778899aabbccddeeff",
     "-control: itext longer than 15 bytes at column 13"},
    {"start:isa-extension:AVX3", "-control: unknown isa-extension 'AVX3' at column 21 (did "
				 "you mean 'AVX2'?)"},
    {"start:isa-category:CONDBR", "-control: unknown isa-category 'CONDBR' at column 20 "
				  "(did you mean 'COND_BR'?)"},
    {"start:isa-category:QUANTUM", "-control: unknown isa-category 'QUANTUM' at column 20"},
    {"start:cpuid:0x100000000", "-control: integer '0x100000000' out of range (at most "
				"4294967295) at column 13"},
    {"start:address:0xfoo", "-control: bad integer '0xfoo' at column 15"},
    {"start:address:+0x10", "-control: missing image name before '+' at column 15"},
    {"start:address:libc.so+", "-control: missing offset after '+' at column 23"},
    {"uniform:800:500", "-control: uniform takes 3 values (period:length:count), not 2 at "
			"column 1"},
    {"uniform:800:500:5:6", "-control: uniform takes 3 values (period:length:count), not 4 "
			    "at column 1"},
    {"uniform:800:900:5", "-control: uniform length 900 exceeds period 800 at column 13"},
    {"uniform:800:500:0", "-control: uniform count must be at least 1 at column 17"},
    {"uniform:800:500:5:count2", "-control: 'count' does not apply to uniform at column 19"},
    {"start:uniform:800:500:5", "-control: uniform takes no event (write "
				"uniform:<period>:<length>:<count>) at column 1"},
    {"start:icount:1,repeat:0", "-control: repeat must be at least 1 at column 23"},
    {"start:icount:1,repeat:x", "-control: bad integer 'x' at column 23"},
    {"start:icount:1,repeat:", "-control: missing value for 'repeat' at column 23"},
    {"start:icount:1,repeat:2:3", "-control: unexpected value '3' at column 25"},
    {"start:icount:1,repeat,repeat", "-control: duplicate 'repeat' at column 23"},
    {"start:icount:1,name", "-control: missing value for 'name' at column 20"},
    {"start:icount:1,waitfor:", "-control: missing value for 'waitfor' at column 24"},
    {"start:icount:1,repeat,stop:icount:2", "-control: 'stop' after a chain option (repeat, "
					    "name and waitfor come last) at column 23"},
    {"repeat:2", "-control: no alarm in the chain at column 1"},
    {"start:icount:1,", "-control: trailing comma at column 15"},
    {",start:icount:1", "-control: empty element at column 1"},
    {"start:icount:1,,stop:icount:2", "-control: empty element at column 16"},
    {"start:icount: 1", "-control: unexpected character 0x20 at column 14"},
    {"start:icount:1:a:b:c:d:e:f:g:h:i:j", "-control: too many fields at column 34"},
    {"start:icount:1,waitfor:nobody", "-control: unknown chain name in waitfor 'nobody' at "
				      "column 24"},
    {"start:icount:1,name:a,waitfor:a", "-control: chain 'a' waits for itself through "
					"waitfor at column 31"},
    {"start:interactive", "-control: interactive alarm needs -interactive-file at column 1"},
};

START_TEST(exact_message)
{
	ck_assert_str_eq(parse_one_failure(errors[_i].input), errors[_i].message);
}
END_TEST

START_TEST(duplicate_chain_name)
{
	const char *texts[] = {"start:icount:1,name:c1", "stop:icount:2,name:c1", NULL};
	ck_assert_str_eq(parse_failure(texts), "-control: duplicate chain name 'c1' at column 20");
}
END_TEST

START_TEST(waitfor_suggests_a_chain)
{
	const char *texts[] = {"start:icount:1,waitfor:c2", "stop:icount:2,name:c1", NULL};
	ck_assert_str_eq(parse_failure(texts), "-control: unknown chain name in waitfor 'c2' at "
					       "column 24 (did you mean 'c1'?)");
}
END_TEST

START_TEST(waitfor_cycle)
{
	const char *texts[] = {"start:icount:1,name:a,waitfor:b", "stop:icount:2,name:b,waitfor:a",
			       NULL};
	ck_assert_str_eq(parse_failure(texts),
			 "-control: chain 'a' waits for itself through waitfor at column 31");
}
END_TEST

START_TEST(column_field_and_spec_unchanged)
{
	struct control_spec *spec = control_spec_new();
	struct control_error err;
	ck_assert_int_eq(control_spec_add_chain(spec, "start:icount:1", &err), 0);
	ck_assert_int_eq(control_spec_add_chain(spec, "stop:adress:x", &err), -1);
	ck_assert_uint_eq(err.column, 6);
	ck_assert_uint_eq(spec->nchains, 1);
	ck_assert_int_eq(control_spec_add_chain(spec, "", &err), -1);
	ck_assert_uint_eq(err.column, 0);
	control_spec_free(spec);
}
END_TEST

START_TEST(long_token_keeps_the_column)
{
	char text[400] = "start:";
	for (int i = 0; i < 300; i++)
		text[6 + i] = 'q';
	const char *msg = parse_one_failure(text);
	ck_assert_ptr_nonnull(strstr(msg, " at column 7"));
}
END_TEST

Suite *control_errors_suite(void)
{
	Suite *s = suite_create("control_errors");
	TCase *tc = tcase_create("errors");
	tcase_add_loop_test(tc, exact_message, 0, (int)(sizeof(errors) / sizeof(errors[0])));
	tcase_add_test(tc, duplicate_chain_name);
	tcase_add_test(tc, waitfor_suggests_a_chain);
	tcase_add_test(tc, waitfor_cycle);
	tcase_add_test(tc, column_field_and_spec_unchanged);
	tcase_add_test(tc, long_token_keeps_the_column);
	suite_add_tcase(s, tc);
	return s;
}

/* Canonical text: what the event log prints, and what the parser reads back unchanged. */
#include "control_test_util.h"

#include <stdio.h>
#include <string.h>

static const struct {
	const char *input, *canonical;
} forms[] = {
    {"start:icount:0x10", "start:icount:16"},
    {"start:address:0X401000:count1", "start:address:0x401000"},
    {"start:address:foo", "start:address:foo"},
    {"start:address:libc.so.6+4096", "start:address:libc.so.6+0x1000"},
    {"precond:ssc:0x0000abcd", "precond:ssc:abcd"},
    {"start:itext:0F0B", "start:itext:0f0b"},
    {"start:int3", "start:int3"},
    {"start:isa-extension:avx2:global", "start:isa-extension:AVX2:global"},
    {"stop:isa-category:x87_alu", "stop:isa-category:X87_ALU"},
    {"start:cpuid:4:1", "start:cpuid:0x4:0x1"},
    {"start:magic:17", "start:magic:0x11"},
    {"start:magic:1:0x2", "start:magic:0x1:0x2"},
    {"start:pcontrol:region1", "start:pcontrol:region1"},
    {"start:enter_func:foo,stop:exit_func:foo", "start:enter_func:foo,stop:exit_func:foo"},
    {"start:timeout:5", "start:timeout:5"},
    {"threadid:icount:7:tid1", "threadid:icount:7:tid1"},
    {"uniform:800:500:5", "uniform:800:500:5"},
    {"stop:address:foo:bcast:tid2:count3", "stop:address:foo:count3:tid2:bcast"},
    {"start:ssc:1,bcast,repeat:1", "start:ssc:1:bcast"},
    {"start:icount:1,repeat,waitfor:a,name:b", "start:icount:1,repeat,name:b,waitfor:a"},
};

static const char *other_chain = "start:icount:1,name:a";

START_TEST(canonical_form)
{
	const char *texts[] = {other_chain, forms[_i].input, NULL};
	struct control_spec *spec = parse_chains(texts);
	ck_assert_str_eq(chain_text(spec, 1), forms[_i].canonical);
	control_spec_free(spec);
}
END_TEST

/* Reading the canonical text gives the same canonical text, and each alarm's stored text is
 * its piece of it. */
START_TEST(canonical_round_trip)
{
	char first[1024];
	const char *texts[] = {other_chain, forms[_i].canonical, NULL};
	struct control_spec *spec = parse_chains(texts);
	snprintf(first, sizeof(first), "%s", chain_text(spec, 1));
	ck_assert_str_eq(first, forms[_i].canonical);
	const struct control_chain *c = &spec->chains[1];
	size_t at = 0;
	for (size_t i = 0; i < c->nalarms; i++) {
		size_t n = strlen(c->alarms[i].text);
		ck_assert_int_eq(strncmp(first + at, c->alarms[i].text, n), 0);
		at += n + 1;
	}
	control_spec_free(spec);
}
END_TEST

START_TEST(format_truncates_like_snprintf)
{
	struct control_spec *spec = parse_one("start:address:foo:count3");
	char small[8];
	memset(small, 'x', sizeof(small));
	size_t n = control_alarm_format(&spec->chains[0].alarms[0], small, sizeof(small));
	ck_assert_uint_eq(n, strlen("start:address:foo:count3"));
	ck_assert_str_eq(small, "start:a");
	ck_assert_uint_eq(control_alarm_format(&spec->chains[0].alarms[0], NULL, 0), n);
	ck_assert_uint_eq(control_chain_format(&spec->chains[0], small, 1), n);
	ck_assert_str_eq(small, "");
	control_spec_free(spec);
}
END_TEST

START_TEST(names_of_enums)
{
	ck_assert_str_eq(control_event_name(CONTROL_EVENT_THREADID), "threadid");
	ck_assert_str_eq(control_event_name(CONTROL_EVENT_NONE), "none");
	ck_assert_str_eq(control_alarm_type_name(CONTROL_ALARM_ISA_CATEGORY), "isa-category");
	ck_assert_str_eq(control_alarm_type_name(CONTROL_ALARM_UNIFORM), "uniform");
}
END_TEST

Suite *control_print_suite(void)
{
	Suite *s = suite_create("control_print");
	TCase *tc = tcase_create("print");
	int n = (int)(sizeof(forms) / sizeof(forms[0]));
	tcase_add_loop_test(tc, canonical_form, 0, n);
	tcase_add_loop_test(tc, canonical_round_trip, 0, n);
	tcase_add_test(tc, format_truncates_like_snprintf);
	tcase_add_test(tc, names_of_enums);
	suite_add_tcase(s, tc);
	return s;
}

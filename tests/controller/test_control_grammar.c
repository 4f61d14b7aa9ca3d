/* Every alarm type and modifier lands in the fields the engine will read. */
#include "control_test_util.h"

#include <string.h>

START_TEST(icount_decimal_and_hex)
{
	struct control_spec *spec = parse_one("start:icount:100");
	const struct control_alarm *a = only_alarm(spec);
	ck_assert_int_eq(a->event, CONTROL_EVENT_START);
	ck_assert_int_eq(a->type, CONTROL_ALARM_ICOUNT);
	ck_assert_uint_eq(a->u.icount, 100);
	ck_assert_uint_eq(a->count, 1);
	ck_assert(!a->has_tid && !a->bcast && !a->global);
	ck_assert_uint_eq(a->column, 1);
	ck_assert_str_eq(a->text, "start:icount:100");
	control_spec_free(spec);

	spec = parse_one("stop:icount:0xde0b6b3a7640000"); /* CONTROL_COUNT_MAX, in hex */
	ck_assert_uint_eq(only_alarm(spec)->u.icount, CONTROL_COUNT_MAX);
	ck_assert_int_eq(only_alarm(spec)->event, CONTROL_EVENT_STOP);
	control_spec_free(spec);
}
END_TEST

START_TEST(address_three_forms)
{
	struct control_spec *spec = parse_one("start:address:0x401000");
	ck_assert_int_eq(only_alarm(spec)->u.address.kind, CONTROL_ADDRESS_PC);
	ck_assert_uint_eq(only_alarm(spec)->u.address.pc, 0x401000);
	control_spec_free(spec);

	spec = parse_one("start:address:foo");
	ck_assert_int_eq(only_alarm(spec)->u.address.kind, CONTROL_ADDRESS_SYMBOL);
	ck_assert_str_eq(only_alarm(spec)->u.address.symbol, "foo");
	control_spec_free(spec);

	spec = parse_one("start:address:/usr/lib/libstdc++.so.6+0x1f0");
	const struct control_alarm *a = only_alarm(spec);
	ck_assert_int_eq(a->u.address.kind, CONTROL_ADDRESS_IMAGE_OFFSET);
	ck_assert_str_eq(a->u.address.image, "/usr/lib/libstdc++.so.6");
	ck_assert_uint_eq(a->u.address.offset, 0x1f0);
	control_spec_free(spec);

	spec = parse_one("start:address:app+16");
	ck_assert_str_eq(only_alarm(spec)->u.address.image, "app");
	ck_assert_uint_eq(only_alarm(spec)->u.address.offset, 16);
	control_spec_free(spec);
}
END_TEST

START_TEST(ssc_is_hex_with_or_without_prefix)
{
	struct control_spec *spec = parse_one("start:ssc:11223344");
	ck_assert_int_eq(only_alarm(spec)->type, CONTROL_ALARM_SSC);
	ck_assert_uint_eq(only_alarm(spec)->u.ssc, 0x11223344);
	control_spec_free(spec);
	spec = parse_one("start:ssc:0xFFFFFFFF");
	ck_assert_uint_eq(only_alarm(spec)->u.ssc, 0xffffffff);
	control_spec_free(spec);
}
END_TEST

START_TEST(itext_bytes)
{
	struct control_spec *spec = parse_one("start:itext:0F05");
	const struct control_alarm *a = only_alarm(spec);
	ck_assert_uint_eq(a->u.itext.len, 2);
	ck_assert_uint_eq(a->u.itext.bytes[0], 0x0f);
	ck_assert_uint_eq(a->u.itext.bytes[1], 0x05);
	control_spec_free(spec);
	spec = parse_one("start:itext:000102030405060708090a0b0c0d0e");
	ck_assert_uint_eq(only_alarm(spec)->u.itext.len, 15);
	ck_assert_uint_eq(only_alarm(spec)->u.itext.bytes[14], 0x0e);
	control_spec_free(spec);
}
END_TEST

START_TEST(int3_and_interactive_take_no_value)
{
	struct control_spec *spec = parse_one("start:int3:count2");
	ck_assert_int_eq(only_alarm(spec)->type, CONTROL_ALARM_INT3);
	ck_assert_uint_eq(only_alarm(spec)->count, 2);
	control_spec_free(spec);

	struct control_spec *s2 = control_spec_new();
	struct control_error err;
	ck_assert_int_eq(control_spec_set_knob(s2, "-interactive-file", "/tmp/ctl", &err), 0);
	ck_assert_int_eq(control_spec_add_chain(s2, "start:interactive:bcast", &err), 0);
	ck_assert_int_eq(control_spec_finish(s2, &err), 0);
	ck_assert_int_eq(s2->chains[0].alarms[0].type, CONTROL_ALARM_INTERACTIVE);
	ck_assert(s2->chains[0].alarms[0].bcast);
	ck_assert_str_eq(s2->interactive_file, "/tmp/ctl");
	control_spec_free(s2);
}
END_TEST

START_TEST(isa_names_take_xed_spelling)
{
	struct control_spec *spec = parse_one("start:isa-extension:avx512evex");
	ck_assert_int_eq(only_alarm(spec)->type, CONTROL_ALARM_ISA_EXTENSION);
	ck_assert_str_eq(only_alarm(spec)->u.isa, "AVX512EVEX");
	control_spec_free(spec);
	spec = parse_one("start:isa-extension:SSE4A");
	ck_assert_str_eq(only_alarm(spec)->u.isa, "SSE4a");
	control_spec_free(spec);
	spec = parse_one("stop:isa-category:COND_BR");
	ck_assert_int_eq(only_alarm(spec)->type, CONTROL_ALARM_ISA_CATEGORY);
	ck_assert_str_eq(only_alarm(spec)->u.isa, "COND_BR");
	control_spec_free(spec);
}
END_TEST

START_TEST(cpuid_leaf_and_subleaf)
{
	struct control_spec *spec = parse_one("start:cpuid:0x80000001");
	const struct control_alarm *a = only_alarm(spec);
	ck_assert_uint_eq(a->u.cpuid.leaf, 0x80000001);
	ck_assert(!a->u.cpuid.has_subleaf);
	control_spec_free(spec);
	spec = parse_one("start:cpuid:7:1:tid2");
	a = only_alarm(spec);
	ck_assert_uint_eq(a->u.cpuid.leaf, 7);
	ck_assert(a->u.cpuid.has_subleaf);
	ck_assert_uint_eq(a->u.cpuid.subleaf, 1);
	ck_assert(a->has_tid);
	ck_assert_uint_eq(a->tid, 2);
	control_spec_free(spec);
}
END_TEST

START_TEST(magic_one_or_two_values)
{
	struct control_spec *spec = parse_one("start:magic:0x4711");
	ck_assert_uint_eq(only_alarm(spec)->u.magic.a, 0x4711);
	ck_assert(!only_alarm(spec)->u.magic.has_b);
	control_spec_free(spec);
	spec = parse_one("stop:magic:1:2:count3");
	const struct control_alarm *a = only_alarm(spec);
	ck_assert_uint_eq(a->u.magic.a, 1);
	ck_assert(a->u.magic.has_b);
	ck_assert_uint_eq(a->u.magic.b, 2);
	ck_assert_uint_eq(a->count, 3);
	control_spec_free(spec);
}
END_TEST

START_TEST(string_valued_types)
{
	struct control_spec *spec = parse_one("start:pcontrol:phase2");
	ck_assert_str_eq(only_alarm(spec)->u.pcontrol, "phase2");
	control_spec_free(spec);
	spec = parse_one("start:enter_func:foo,stop:exit_func:bar");
	ck_assert_int_eq(spec->chains[0].alarms[0].type, CONTROL_ALARM_ENTER_FUNC);
	ck_assert_str_eq(spec->chains[0].alarms[0].u.func, "foo");
	ck_assert_int_eq(spec->chains[0].alarms[1].type, CONTROL_ALARM_EXIT_FUNC);
	ck_assert_str_eq(spec->chains[0].alarms[1].u.func, "bar");
	ck_assert_uint_eq(spec->chains[0].alarms[1].column, 22);
	control_spec_free(spec);
}
END_TEST

START_TEST(timeout_seconds)
{
	struct control_spec *spec = parse_one("stop:timeout:30");
	ck_assert_int_eq(only_alarm(spec)->type, CONTROL_ALARM_TIMEOUT);
	ck_assert_uint_eq(only_alarm(spec)->u.timeout_seconds, 30);
	control_spec_free(spec);
}
END_TEST

START_TEST(uniform_has_no_event)
{
	struct control_spec *spec = parse_one("uniform:800:500:5:tid1");
	const struct control_alarm *a = only_alarm(spec);
	ck_assert_int_eq(a->event, CONTROL_EVENT_NONE);
	ck_assert_int_eq(a->type, CONTROL_ALARM_UNIFORM);
	ck_assert_uint_eq(a->u.uniform.period, 800);
	ck_assert_uint_eq(a->u.uniform.length, 500);
	ck_assert_uint_eq(a->u.uniform.count, 5);
	ck_assert_uint_eq(a->tid, 1);
	control_spec_free(spec);
}
END_TEST

START_TEST(threadid_and_precond_events)
{
	struct control_spec *spec = parse_one("precond:icount:5,threadid:icount:10");
	ck_assert_int_eq(spec->chains[0].alarms[0].event, CONTROL_EVENT_PRECOND);
	ck_assert_int_eq(spec->chains[0].alarms[1].event, CONTROL_EVENT_THREADID);
	control_spec_free(spec);
}
END_TEST

START_TEST(all_modifiers_in_any_order)
{
	struct control_spec *spec = parse_one("stop:address:foo:bcast:count3:tid7");
	const struct control_alarm *a = only_alarm(spec);
	ck_assert_uint_eq(a->count, 3);
	ck_assert(a->has_tid);
	ck_assert_uint_eq(a->tid, 7);
	ck_assert(a->bcast);
	ck_assert(!a->global);
	control_spec_free(spec);
	spec = parse_one("start:ssc:1:global:count10");
	a = only_alarm(spec);
	ck_assert(a->global);
	ck_assert_uint_eq(a->count, 10);
	control_spec_free(spec);
}
END_TEST

START_TEST(standalone_bcast_marks_the_alarm_before)
{
	struct control_spec *spec = parse_one("start:address:foo,bcast,stop:address:bar");
	ck_assert_uint_eq(spec->chains[0].nalarms, 2);
	ck_assert(spec->chains[0].alarms[0].bcast);
	ck_assert(!spec->chains[0].alarms[1].bcast);
	control_spec_free(spec);
}
END_TEST

START_TEST(chain_options)
{
	struct control_spec *spec = parse_one("start:icount:100");
	ck_assert_uint_eq(spec->chains[0].repeat, 1);
	ck_assert_ptr_null(spec->chains[0].name);
	ck_assert_ptr_null(spec->chains[0].waitfor);
	ck_assert_str_eq(spec->chains[0].knob, "-control");
	ck_assert_str_eq(spec->chains[0].source, "start:icount:100");
	control_spec_free(spec);

	spec = parse_one("start:icount:100,repeat");
	ck_assert_uint_eq(spec->chains[0].repeat, CONTROL_REPEAT_FOREVER);
	control_spec_free(spec);

	const char *two[] = {"start:icount:1,repeat:3,name:first",
			     "stop:icount:2,waitfor:first,name:second", NULL};
	spec = parse_chains(two);
	ck_assert_uint_eq(spec->chains[0].repeat, 3);
	ck_assert_str_eq(spec->chains[0].name, "first");
	ck_assert_str_eq(spec->chains[1].waitfor, "first");
	ck_assert_uint_eq(spec->chains[1].waitfor_chain, 0);
	ck_assert_str_eq(spec->chains[1].name, "second");
	control_spec_free(spec);
}
END_TEST

START_TEST(long_chain_keeps_order)
{
	struct control_spec *spec =
	    parse_one("precond:ssc:1,start:icount:2,stop:icount:3,start:icount:4,"
		      "stop:icount:5,start:icount:6,stop:icount:7");
	ck_assert_uint_eq(spec->chains[0].nalarms, 7);
	for (size_t i = 1; i < 7; i++)
		ck_assert_uint_eq(spec->chains[0].alarms[i].u.icount, i + 1);
	control_spec_free(spec);
}
END_TEST

Suite *control_grammar_suite(void)
{
	Suite *s = suite_create("control_grammar");
	TCase *tc = tcase_create("grammar");
	tcase_add_test(tc, icount_decimal_and_hex);
	tcase_add_test(tc, address_three_forms);
	tcase_add_test(tc, ssc_is_hex_with_or_without_prefix);
	tcase_add_test(tc, itext_bytes);
	tcase_add_test(tc, int3_and_interactive_take_no_value);
	tcase_add_test(tc, isa_names_take_xed_spelling);
	tcase_add_test(tc, cpuid_leaf_and_subleaf);
	tcase_add_test(tc, magic_one_or_two_values);
	tcase_add_test(tc, string_valued_types);
	tcase_add_test(tc, timeout_seconds);
	tcase_add_test(tc, uniform_has_no_event);
	tcase_add_test(tc, threadid_and_precond_events);
	tcase_add_test(tc, all_modifiers_in_any_order);
	tcase_add_test(tc, standalone_bcast_marks_the_alarm_before);
	tcase_add_test(tc, chain_options);
	tcase_add_test(tc, long_chain_keeps_order);
	suite_add_tcase(s, tc);
	return s;
}

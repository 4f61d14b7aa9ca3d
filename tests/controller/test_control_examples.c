/* The seed's examples, each parsed into the structure its prose describes. The seed spells
 * `addres` in several usage examples; the literal spelling gets a suggestion, and the tests
 * check the intended `address` (docs/controller.md, "The seed's typos"). */
#include "control_test_util.h"

#include <stdio.h>

static const struct control_alarm *alarm_at(const struct control_spec *spec, size_t chain, size_t i)
{
	ck_assert_uint_lt(chain, spec->nchains);
	ck_assert_uint_lt(i, spec->chains[chain].nalarms);
	return &spec->chains[chain].alarms[i];
}

static void check_symbol(const struct control_alarm *a, enum control_event event,
			 const char *symbol)
{
	ck_assert_int_eq(a->event, event);
	ck_assert_int_eq(a->type, CONTROL_ALARM_ADDRESS);
	ck_assert_int_eq(a->u.address.kind, CONTROL_ADDRESS_SYMBOL);
	ck_assert_str_eq(a->u.address.symbol, symbol);
}

START_TEST(start_at_icount)
{
	struct control_spec *spec = parse_one("start:icount:100");
	ck_assert_uint_eq(alarm_at(spec, 0, 0)->u.icount, 100);
	ck_assert_uint_eq(spec->chains[0].repeat, 1);
	ck_assert(!spec->default_start);
	control_spec_free(spec);
}
END_TEST

START_TEST(stop_at_third_foo)
{
	struct control_spec *spec = parse_one("stop:address:foo:count3");
	check_symbol(alarm_at(spec, 0, 0), CONTROL_EVENT_STOP, "foo");
	ck_assert_uint_eq(alarm_at(spec, 0, 0)->count, 3);
	/* No start anywhere: threads begin inside the region. */
	ck_assert(spec->default_start);
	control_spec_free(spec);
}
END_TEST

START_TEST(repeat_three_and_forever)
{
	struct control_spec *spec = parse_one("start:icount:100,repeat:3");
	ck_assert_uint_eq(spec->chains[0].repeat, 3);
	control_spec_free(spec);
	spec = parse_one("start:icount:100,repeat");
	ck_assert_uint_eq(spec->chains[0].repeat, CONTROL_REPEAT_FOREVER);
	control_spec_free(spec);
}
END_TEST

START_TEST(start_then_stop_repeated_twice)
{
	struct control_spec *spec = parse_one("start:icount:100,stop:address:foo:count3,repeat:2");
	ck_assert_uint_eq(spec->chains[0].nalarms, 2);
	ck_assert_uint_eq(alarm_at(spec, 0, 0)->u.icount, 100);
	check_symbol(alarm_at(spec, 0, 1), CONTROL_EVENT_STOP, "foo");
	ck_assert_uint_eq(alarm_at(spec, 0, 1)->count, 3);
	ck_assert_uint_eq(spec->chains[0].repeat, 2);
	control_spec_free(spec);
}
END_TEST

START_TEST(precond_bar_then_foo)
{
	struct control_spec *spec = parse_one("precond:address:bar,start:address:foo,"
					      "stop:icount:100000");
	check_symbol(alarm_at(spec, 0, 0), CONTROL_EVENT_PRECOND, "bar");
	check_symbol(alarm_at(spec, 0, 1), CONTROL_EVENT_START, "foo");
	ck_assert_int_eq(alarm_at(spec, 0, 2)->event, CONTROL_EVENT_STOP);
	ck_assert_uint_eq(alarm_at(spec, 0, 2)->u.icount, 100000);
	control_spec_free(spec);
}
END_TEST

START_TEST(only_thread_three)
{
	struct control_spec *spec = parse_one("start:icount:100:tid3");
	ck_assert(alarm_at(spec, 0, 0)->has_tid);
	ck_assert_uint_eq(alarm_at(spec, 0, 0)->tid, 3);
	control_spec_free(spec);
}
END_TEST

START_TEST(interactive_both_ways)
{
	struct control_spec *spec = control_spec_new();
	struct control_error err;
	char *argv[] = {"sde",
			"-mix",
			"-control",
			"start:interactive:bcast,stop:interactive:bcast",
			"-interactive-file",
			"/tmp/ctrl_file",
			"--",
			"myapp",
			NULL};
	int argc = 8, i = 1;
	ck_assert_int_eq(control_spec_take_knob(spec, argc, argv, &i, &err), 0);
	i = 2;
	ck_assert_int_eq(control_spec_take_knob(spec, argc, argv, &i, &err), 1);
	ck_assert_int_eq(control_spec_take_knob(spec, argc, argv, &i, &err), 1);
	ck_assert_int_eq(i, 6);
	ck_assert_int_eq(control_spec_finish(spec, &err), 0);
	ck_assert_int_eq(alarm_at(spec, 0, 0)->type, CONTROL_ALARM_INTERACTIVE);
	ck_assert(alarm_at(spec, 0, 0)->bcast && alarm_at(spec, 0, 1)->bcast);
	ck_assert_str_eq(spec->interactive_file, "/tmp/ctrl_file");
	control_spec_free(spec);
}
END_TEST

START_TEST(usage_foo_to_bar)
{
	ck_assert_str_eq(parse_one_failure("start:address:foo,stop:addres:bar"),
			 "-control: unknown alarm type 'addres' at column 24 (did you mean "
			 "'address'?)");
	struct control_spec *spec = parse_one("start:address:foo,stop:address:bar");
	check_symbol(alarm_at(spec, 0, 0), CONTROL_EVENT_START, "foo");
	check_symbol(alarm_at(spec, 0, 1), CONTROL_EVENT_STOP, "bar");
	control_spec_free(spec);
}
END_TEST

START_TEST(usage_skip_length_equivalence)
{
	struct control_spec *spec = parse_one("start:icount:1000000,stop:icount:100000");
	ck_assert_uint_eq(alarm_at(spec, 0, 0)->u.icount, 1000000);
	ck_assert_uint_eq(alarm_at(spec, 0, 1)->u.icount, 100000);
	char control[128];
	snprintf(control, sizeof(control), "%s", chain_text(spec, 0));
	control_spec_free(spec);

	spec = control_spec_new();
	struct control_error err;
	ck_assert_int_eq(control_spec_set_knob(spec, "-skip", "1000000", &err), 0);
	ck_assert_int_eq(control_spec_set_knob(spec, "-length", "100000", &err), 0);
	ck_assert_int_eq(control_spec_finish(spec, &err), 0);
	ck_assert_str_eq(chain_text(spec, 0), control);
	control_spec_free(spec);
}
END_TEST

START_TEST(usage_precond_ssc)
{
	struct control_spec *spec =
	    parse_one("precond:ssc:11223344,start:address:foo,stop:address:bar");
	ck_assert_int_eq(alarm_at(spec, 0, 0)->event, CONTROL_EVENT_PRECOND);
	ck_assert_uint_eq(alarm_at(spec, 0, 0)->u.ssc, 0x11223344);
	check_symbol(alarm_at(spec, 0, 1), CONTROL_EVENT_START, "foo");
	check_symbol(alarm_at(spec, 0, 2), CONTROL_EVENT_STOP, "bar");
	control_spec_free(spec);
}
END_TEST

START_TEST(usage_bcast_elements)
{
	struct control_spec *spec = parse_one("start:address:foo,bcast,stop:address:bar,bcast");
	ck_assert_uint_eq(spec->chains[0].nalarms, 2);
	ck_assert(alarm_at(spec, 0, 0)->bcast);
	ck_assert(alarm_at(spec, 0, 1)->bcast);
	ck_assert_str_eq(chain_text(spec, 0), "start:address:foo:bcast,stop:address:bar:bcast");
	control_spec_free(spec);
}
END_TEST

START_TEST(usage_tid0)
{
	struct control_spec *spec = parse_one("start:address:foo:tid0,stop:address:bar:tid0");
	for (size_t i = 0; i < 2; i++) {
		ck_assert(alarm_at(spec, 0, i)->has_tid);
		ck_assert_uint_eq(alarm_at(spec, 0, i)->tid, 0);
	}
	control_spec_free(spec);
}
END_TEST

START_TEST(usage_uniform_after_icount)
{
	struct control_spec *spec = parse_one("precond:icount:200,uniform:800:500:5");
	ck_assert_int_eq(alarm_at(spec, 0, 0)->event, CONTROL_EVENT_PRECOND);
	ck_assert_uint_eq(alarm_at(spec, 0, 0)->u.icount, 200);
	const struct control_alarm *u = alarm_at(spec, 0, 1);
	ck_assert_int_eq(u->type, CONTROL_ALARM_UNIFORM);
	ck_assert_uint_eq(u->u.uniform.period, 800);
	ck_assert_uint_eq(u->u.uniform.length, 500);
	ck_assert_uint_eq(u->u.uniform.count, 5);
	/* uniform opens regions itself: no default start. */
	ck_assert(!spec->default_start);
	control_spec_free(spec);
}
END_TEST

START_TEST(usage_uniform_after_ssc)
{
	struct control_spec *spec = parse_one("precond:ssc:11223344,uniform:800:500:5");
	ck_assert_uint_eq(alarm_at(spec, 0, 0)->u.ssc, 0x11223344);
	ck_assert_int_eq(alarm_at(spec, 0, 1)->type, CONTROL_ALARM_UNIFORM);
	control_spec_free(spec);
}
END_TEST

START_TEST(usage_waitfor_c1)
{
	const char *texts[] = {"precond:address:foo,precond:address:bar,repeat:2,name:c1",
			       "start:address:boo,waitfor:c1", NULL};
	struct control_spec *spec = parse_chains(texts);
	ck_assert_uint_eq(spec->nchains, 2);
	check_symbol(alarm_at(spec, 0, 0), CONTROL_EVENT_PRECOND, "foo");
	check_symbol(alarm_at(spec, 0, 1), CONTROL_EVENT_PRECOND, "bar");
	ck_assert_uint_eq(spec->chains[0].repeat, 2);
	ck_assert_str_eq(spec->chains[0].name, "c1");
	check_symbol(alarm_at(spec, 1, 0), CONTROL_EVENT_START, "boo");
	ck_assert_str_eq(spec->chains[1].waitfor, "c1");
	ck_assert_uint_eq(spec->chains[1].waitfor_chain, 0);
	control_spec_free(spec);
}
END_TEST

START_TEST(usage_enter_exit_func)
{
	struct control_spec *spec = parse_one("start:enter_func:foo,stop:exit_func:foo");
	ck_assert_int_eq(alarm_at(spec, 0, 0)->type, CONTROL_ALARM_ENTER_FUNC);
	ck_assert_str_eq(alarm_at(spec, 0, 0)->u.func, "foo");
	ck_assert_int_eq(alarm_at(spec, 0, 1)->type, CONTROL_ALARM_EXIT_FUNC);
	ck_assert_str_eq(alarm_at(spec, 0, 1)->u.func, "foo");
	control_spec_free(spec);
	spec = parse_one("start:enter_func:foo,stop:exit_func:bar");
	ck_assert_str_eq(alarm_at(spec, 0, 1)->u.func, "bar");
	control_spec_free(spec);
}
END_TEST

Suite *control_examples_suite(void)
{
	Suite *s = suite_create("control_examples");
	TCase *prose = tcase_create("prose");
	tcase_add_test(prose, start_at_icount);
	tcase_add_test(prose, stop_at_third_foo);
	tcase_add_test(prose, repeat_three_and_forever);
	tcase_add_test(prose, start_then_stop_repeated_twice);
	tcase_add_test(prose, precond_bar_then_foo);
	tcase_add_test(prose, only_thread_three);
	tcase_add_test(prose, interactive_both_ways);
	suite_add_tcase(s, prose);
	TCase *usage = tcase_create("usage");
	tcase_add_test(usage, usage_foo_to_bar);
	tcase_add_test(usage, usage_skip_length_equivalence);
	tcase_add_test(usage, usage_precond_ssc);
	tcase_add_test(usage, usage_bcast_elements);
	tcase_add_test(usage, usage_tid0);
	tcase_add_test(usage, usage_uniform_after_icount);
	tcase_add_test(usage, usage_uniform_after_ssc);
	tcase_add_test(usage, usage_waitfor_c1);
	tcase_add_test(usage, usage_enter_exit_func);
	suite_add_tcase(s, usage);
	return s;
}

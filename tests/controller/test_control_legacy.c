/* The old knobs become chains; the default start; argv delegation. */
#include "control_test_util.h"

#include <string.h>

/* Applies knob/value pairs (NULL-terminated) and finishes; returns the finish result. */
static int apply(struct control_spec *spec, const char *const *kv, struct control_error *err)
{
	for (; kv[0]; kv += 2)
		if (control_spec_set_knob(spec, kv[0], kv[1], err))
			return -1;
	return control_spec_finish(spec, err);
}

static struct control_spec *legacy_ok(const char *const *kv)
{
	struct control_spec *spec = control_spec_new();
	struct control_error err;
	ck_assert_msg(apply(spec, kv, &err) == 0, "%s", err.message);
	return spec;
}

static const char *legacy_failure(const char *const *kv)
{
	static struct control_error err;
	struct control_spec *spec = control_spec_new();
	int rc = apply(spec, kv, &err);
	control_spec_free(spec);
	ck_assert_int_eq(rc, -1);
	return err.message;
}

START_TEST(skip_and_length)
{
	const char *kv[] = {"-skip", "1000", "-length", "0x100", NULL};
	struct control_spec *spec = legacy_ok(kv);
	ck_assert_uint_eq(spec->nchains, 1);
	ck_assert_str_eq(chain_text(spec, 0), "start:icount:1000,stop:icount:256");
	ck_assert_str_eq(spec->chains[0].knob, "-skip");
	ck_assert(!spec->default_start);
	control_spec_free(spec);
}
END_TEST

START_TEST(length_alone_keeps_the_default_start)
{
	const char *kv[] = {"-length", "50", NULL};
	struct control_spec *spec = legacy_ok(kv);
	ck_assert_str_eq(chain_text(spec, 0), "stop:icount:50");
	ck_assert(spec->default_start);
	control_spec_free(spec);
	const char *skip[] = {"-skip", "7", NULL};
	spec = legacy_ok(skip);
	ck_assert_str_eq(chain_text(spec, 0), "start:icount:7");
	control_spec_free(spec);
}
END_TEST

/* The seed calls -uniform-period 500 equivalent to uniform:800:...; no rule yields 800, so
 * each number carries over unchanged (docs/controller.md). */
START_TEST(uniform_numbers_carry_over)
{
	const char *seed[] = {"-uniform-skip",
			      "200",
			      "-uniform-period",
			      "500",
			      "-uniform-length",
			      "500",
			      "-uniform-count",
			      "5",
			      NULL};
	struct control_spec *spec = legacy_ok(seed);
	ck_assert_str_eq(chain_text(spec, 0), "precond:icount:200,uniform:500:500:5");
	control_spec_free(spec);

	const char *kv[] = {"-uniform-skip",
			    "200",
			    "-uniform-period",
			    "800",
			    "-uniform-length",
			    "500",
			    "-uniform-count",
			    "5",
			    NULL};
	spec = legacy_ok(kv);
	struct control_spec *same = parse_one("precond:icount:200,uniform:800:500:5");
	ck_assert_str_eq(chain_text(spec, 0), "precond:icount:200,uniform:800:500:5");
	ck_assert_str_eq(chain_text(same, 0), "precond:icount:200,uniform:800:500:5");
	control_spec_free(same);
	control_spec_free(spec);

	const char *noskip[] = {
	    "-uniform-period", "10", "-uniform-length", "1", "-uniform-count", "2", NULL};
	spec = legacy_ok(noskip);
	ck_assert_str_eq(chain_text(spec, 0), "uniform:10:1:2");
	ck_assert(!spec->default_start);
	control_spec_free(spec);
}
END_TEST

START_TEST(control_and_legacy_together)
{
	struct control_spec *spec = control_spec_new();
	struct control_error err;
	ck_assert_int_eq(control_spec_set_knob(spec, "-skip", "5", &err), 0);
	ck_assert_int_eq(control_spec_set_knob(spec, "-control", "stop:ssc:1", &err), 0);
	ck_assert_int_eq(control_spec_finish(spec, &err), 0);
	ck_assert_uint_eq(spec->nchains, 2);
	ck_assert_str_eq(chain_text(spec, 0), "stop:ssc:1");
	ck_assert_str_eq(chain_text(spec, 1), "start:icount:5");
	control_spec_free(spec);
}
END_TEST

START_TEST(default_start)
{
	const char *none[] = {NULL};
	struct control_spec *spec = legacy_ok(none);
	ck_assert_uint_eq(spec->nchains, 0);
	ck_assert(spec->default_start_knob);
	ck_assert(spec->default_start);
	control_spec_free(spec);

	const char *off[] = {"-log:controller_default_start", "0", NULL};
	spec = legacy_ok(off);
	ck_assert(!spec->default_start);
	control_spec_free(spec);

	const char *on_but_started[] = {"-log:controller_default_start", "1", "-control",
					"start:ssc:5", NULL};
	spec = legacy_ok(on_but_started);
	ck_assert(!spec->default_start);
	control_spec_free(spec);

	const char *stop_only[] = {"-control", "stop:ssc:5", NULL};
	spec = legacy_ok(stop_only);
	ck_assert(spec->default_start);
	control_spec_free(spec);
}
END_TEST

START_TEST(files)
{
	const char *kv[] = {"-interactive-file", "/tmp/f", "-controller_log", "/tmp/log", NULL};
	struct control_spec *spec = legacy_ok(kv);
	ck_assert_str_eq(spec->interactive_file, "/tmp/f");
	ck_assert_str_eq(spec->log_file, "/tmp/log");
	control_spec_free(spec);
}
END_TEST

static const struct {
	const char *kv[9];
	const char *message;
} legacy_errors[] = {
    {{"-skip", "x1", NULL}, "-skip: bad integer 'x1' at column 1"},
    {{"-skip", "", NULL}, "-skip: empty value"},
    {{"-skip", "1", "-skip", "2", NULL}, "-skip: given twice"},
    {{"-uniform-count", "0", NULL}, "-uniform-count: must be at least 1 at column 1"},
    {{"-uniform-period", "5", "-uniform-count", "1", NULL},
     "-uniform-length: missing: -uniform-period, -uniform-length and -uniform-count go "
     "together"},
    {{"-uniform-skip", "5", NULL},
     "-uniform-period: missing: -uniform-period, -uniform-length and -uniform-count go "
     "together"},
    {{"-uniform-period", "500", "-uniform-length", "600", "-uniform-count", "1", NULL},
     "-uniform-length: 600 exceeds -uniform-period 500"},
    {{"-log:controller_default_start", "2", NULL},
     "-log:controller_default_start: bad value '2' (expected 0 or 1) at column 1"},
    {{"-interactive-file", "", NULL}, "-interactive-file: empty value"},
    {{"-interactive-file", "a", "-interactive-file", "b", NULL}, "-interactive-file: given twice"},
    {{"-frob", "1", NULL}, "-frob: not a controller knob"},
    {{"-control", "start:icount:1,", NULL}, "-control: trailing comma at column 15"},
};

START_TEST(legacy_error)
{
	ck_assert_str_eq(legacy_failure(legacy_errors[_i].kv), legacy_errors[_i].message);
}
END_TEST

START_TEST(argv_delegation)
{
	char *argv[] = {"logger",   "-log:basename", "out",
			"-control", "start:ssc:1",   "-log:controller_default_start",
			"0",	    "-skip",	     NULL};
	int argc = 8;
	struct control_spec *spec = control_spec_new();
	struct control_error err;
	ck_assert(!control_is_knob("-log:basename"));
	ck_assert(control_is_knob("-uniform-count"));
	ck_assert(control_is_knob("-controller_log"));
	int i = 1;
	ck_assert_int_eq(control_spec_take_knob(spec, argc, argv, &i, &err), 0);
	ck_assert_int_eq(i, 1);
	i = 3;
	ck_assert_int_eq(control_spec_take_knob(spec, argc, argv, &i, &err), 1);
	ck_assert_int_eq(i, 5);
	ck_assert_int_eq(control_spec_take_knob(spec, argc, argv, &i, &err), 1);
	ck_assert_int_eq(i, 7);
	ck_assert_int_eq(control_spec_take_knob(spec, argc, argv, &i, &err), -1);
	ck_assert_str_eq(err.message, "-skip: missing value");
	ck_assert_int_eq(i, 7);
	ck_assert_int_eq(control_spec_finish(spec, &err), 0);
	ck_assert(!spec->default_start_knob);
	control_spec_free(spec);
}
END_TEST

/* Found by the fuzzer: a knob name longer than the message buffer overran it. */
START_TEST(long_knob_name_is_cut)
{
	char knob[400];
	memset(knob, 'k', sizeof(knob) - 1);
	knob[0] = '-';
	knob[sizeof(knob) - 1] = '\0';
	struct control_spec *spec = control_spec_new();
	struct control_error err;
	ck_assert_int_eq(control_spec_set_knob(spec, knob, "1", &err), -1);
	ck_assert_uint_eq(strlen(err.message), 64 + strlen(": not a controller knob"));
	control_spec_free(spec);
}
END_TEST

START_TEST(knobs_after_finish_are_refused)
{
	struct control_spec *spec = control_spec_new();
	struct control_error err;
	ck_assert_int_eq(control_spec_finish(spec, &err), 0);
	ck_assert_int_eq(control_spec_set_knob(spec, "-skip", "1", &err), -1);
	ck_assert_int_eq(control_spec_add_chain(spec, "start:ssc:1", &err), -1);
	ck_assert_int_eq(control_spec_finish(spec, &err), -1);
	control_spec_free(spec);
}
END_TEST

Suite *control_legacy_suite(void)
{
	Suite *s = suite_create("control_legacy");
	TCase *tc = tcase_create("legacy");
	tcase_add_test(tc, skip_and_length);
	tcase_add_test(tc, length_alone_keeps_the_default_start);
	tcase_add_test(tc, uniform_numbers_carry_over);
	tcase_add_test(tc, control_and_legacy_together);
	tcase_add_test(tc, default_start);
	tcase_add_test(tc, files);
	tcase_add_loop_test(tc, legacy_error, 0,
			    (int)(sizeof(legacy_errors) / sizeof(legacy_errors[0])));
	tcase_add_test(tc, argv_delegation);
	tcase_add_test(tc, long_knob_name_is_cut);
	tcase_add_test(tc, knobs_after_finish_are_refused);
	suite_add_tcase(s, tc);
	return s;
}

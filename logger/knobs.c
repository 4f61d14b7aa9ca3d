#include "knobs.h"

#include <stddef.h>
#include <stdio.h>
#include <string.h>

enum knob_kind { KNOB_BOOL, KNOB_STRING };

struct knob {
	const char *name;
	enum knob_kind kind;
	size_t offset;
	const char *help;
};

#define KNOB(name, kind, field, help)                                                              \
	{                                                                                          \
		name, kind, offsetof(struct logger_knobs, field), help                             \
	}
static const struct knob knobs[] = {
    KNOB("-log", KNOB_BOOL, log, "record a pinball (0: only run under the JIT)"),
    KNOB("-log:basename", KNOB_STRING, basename, "region k is written as pinball B.k"),
    KNOB("-log:fat", KNOB_BOOL, fat,
	 "1: every mapped page at region start; 0: those the region touches"),
    KNOB("-icount", KNOB_BOOL, analysis.icount, "count instructions per thread"),
    KNOB("-oicount", KNOB_STRING, analysis.oicount, "write the -icount report to FILE"),
    KNOB("-mix", KNOB_BOOL, analysis.mix,
	 "histograms of the instructions run, by extension, category and mnemonic"),
    KNOB("-omix", KNOB_STRING, analysis.omix, "write the -mix report to FILE"),
    KNOB("-footprint", KNOB_BOOL, analysis.footprint,
	 "distinct cache lines and pages touched by loads, stores and code"),
    KNOB("-ofootprint", KNOB_STRING, analysis.ofootprint, "write the -footprint report to FILE"),
    KNOB("-jit:stats", KNOB_BOOL, jit_stats, "print code cache statistics at exit"),
    KNOB("-jit:check_native_exec", KNOB_BOOL, check_native_exec,
	 "keep app code non-executable, so any escape from the cache faults"),
    KNOB("-jit:selftest_escape", KNOB_BOOL, selftest_escape,
	 "(test) run app code natively once, to prove -jit:check_native_exec catches it"),
    KNOB("-jit:stress_stop_ms", KNOB_STRING, stress_stop_ms,
	 "(test) stop and resume every thread every N milliseconds"),
    KNOB("-follow_execv", KNOB_BOOL, follow_execv, "run programs the app execs under the JIT"),
    KNOB("-jit:argv0", KNOB_STRING, argv0, "argv[0] to give the app"),
};

static void usage(void)
{
	printf("usage: logger [knobs] [--] PROGRAM [ARGS...]\n\nknobs:\n");
	for (size_t i = 0; i < sizeof knobs / sizeof knobs[0]; i++)
		printf("  %-26s %s\n", knobs[i].name, knobs[i].help);
	printf("  %-26s %s\n", "-control SPEC", "region control (docs/controller.md)");
	printf("  %-26s %s\n", "-controller_log FILE", "log every controller event");
	printf("  %-26s %s\n", "-skip N -length M", "legacy region knobs");
	printf("  %-26s %s\n", "-uniform-*, -interactive-file", "legacy and interactive control");
}

static const struct knob *find(const char *name)
{
	for (size_t i = 0; i < sizeof knobs / sizeof knobs[0]; i++)
		if (strcmp(knobs[i].name, name) == 0)
			return &knobs[i];
	return NULL;
}

static bool is_bool_value(const char *s)
{
	return s && (!strcmp(s, "0") || !strcmp(s, "1"));
}

int knobs_parse(int argc, char **argv, struct logger_knobs *k)
{
	*k = (struct logger_knobs){.log = true, .basename = "pinball/log", .follow_execv = true};
	k->control = control_spec_new();
	struct control_error cerr;
	int i = 1;
	while (i < argc) {
		const char *arg = argv[i];
		int taken =
		    k->control ? control_spec_take_knob(k->control, argc, argv, &i, &cerr) : 0;
		if (taken < 0) {
			fprintf(stderr, "logger: %s\n", cerr.message);
			return 2;
		}
		if (taken > 0)
			continue;
		if (!strcmp(arg, "--")) {
			k->knob_end = i;
			k->program_index = i + 1;
			break;
		}
		if (!strcmp(arg, "-h") || !strcmp(arg, "-help") || !strcmp(arg, "--help")) {
			usage();
			return -1;
		}
		if (arg[0] != '-') {
			k->knob_end = k->program_index = i;
			break;
		}
		const struct knob *kn = find(arg);
		if (!kn) {
			fprintf(stderr, "logger: error: unknown knob '%s' (see logger -help)\n",
				arg);
			return 2;
		}
		char *field = (char *)k + kn->offset;
		if (kn->kind == KNOB_BOOL) {
			/* A boolean takes an optional 0/1: "-icount" alone means 1. */
			bool value = true;
			if (i + 1 < argc && is_bool_value(argv[i + 1]))
				value = argv[++i][0] == '1';
			*(bool *)field = value;
		} else {
			if (i + 1 >= argc || !strcmp(argv[i + 1], "--")) {
				fprintf(stderr, "logger: error: knob '%s' needs a value\n", arg);
				return 2;
			}
			*(const char **)field = argv[++i];
		}
		i++;
	}
	if (!k->control || control_spec_finish(k->control, &cerr)) {
		fprintf(stderr, "logger: %s\n", k->control ? cerr.message : "out of memory");
		return 2;
	}
	if (!k->program_index || k->program_index >= argc) {
		fprintf(stderr, "logger: error: no program given (usage: logger [knobs] -- "
				"PROGRAM [ARGS...])\n");
		return 2;
	}
	return 0;
}

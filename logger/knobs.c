#include "knobs.h"

#include <stddef.h>
#include <stdio.h>
#include <string.h>

#define KNOB(name, kind, field, value, help)                                                       \
	{                                                                                          \
		name, kind, offsetof(struct logger_knobs, field), value, help                      \
	}
static const struct knob logger_knobs[] = {
    KNOB("-log", KNOB_BOOL, log, NULL, "record a pinball (0: only run under the JIT)"),
    KNOB("-log:basename", KNOB_STRING, basename, "B", "region k is written as pinball B.k"),
    KNOB("-log:fat", KNOB_BOOL, fat, NULL,
	 "1: every mapped page at region start; 0: those the region touches"),
    KNOB("-jit:check_native_exec", KNOB_BOOL, check_native_exec, NULL,
	 "keep app code non-executable, so any escape from the cache faults"),
    KNOB("-jit:selftest_escape", KNOB_BOOL, selftest_escape, NULL,
	 "(test) run app code natively once, to prove -jit:check_native_exec catches it"),
    KNOB("-jit:stress_stop_ms", KNOB_STRING, stress_stop_ms, "N",
	 "(test) stop and resume every thread every N milliseconds"),
    KNOB("-follow_execv", KNOB_BOOL, follow_execv, NULL,
	 "run programs the app execs under the JIT"),
    KNOB("-jit:argv0", KNOB_STRING, argv0, "NAME", "argv[0] to give the app"),
};

int knobs_parse(int argc, char **argv, struct logger_knobs *k)
{
	*k = (struct logger_knobs){.log = true, .basename = "pinball/log", .follow_execv = true};
	if (!shared_knobs_init(&k->shared)) {
		fprintf(stderr, "logger: error: out of memory\n");
		return 2;
	}
	const struct knob_set sets[] = {KNOB_SET(logger_knobs, k), shared_knob_set(&k->shared)};
	enum { NSETS = sizeof sets / sizeof sets[0] };
	char err[512];
	int i = 1;
	while (i < argc) {
		const char *arg = argv[i];
		int taken =
		    knobs_take(sets, NSETS, k->shared.control, argc, argv, &i, err, sizeof err);
		if (taken < 0) {
			fprintf(stderr, "logger: %s\n", err);
			return 2;
		}
		if (taken > 0)
			continue;
		if (!strcmp(arg, "--")) {
			k->knob_end = i;
			k->program_index = i + 1;
			break;
		}
		if (knobs_help_wanted(arg)) {
			printf("usage: logger [knobs] [--] PROGRAM [ARGS...]\n\nknobs:\n");
			knobs_usage(stdout, sets, NSETS);
			shared_knobs_usage_controller(stdout);
			return -1;
		}
		if (arg[0] != '-') {
			k->knob_end = k->program_index = i;
			break;
		}
		fprintf(stderr, "logger: error: unknown knob '%s' (see logger -help)\n", arg);
		return 2;
	}
	struct control_error cerr;
	if (control_spec_finish(k->shared.control, &cerr)) {
		fprintf(stderr, "logger: %s\n", cerr.message);
		return 2;
	}
	if (!k->program_index || k->program_index >= argc) {
		fprintf(stderr, "logger: error: no program given (usage: logger [knobs] -- "
				"PROGRAM [ARGS...])\n");
		return 2;
	}
	return 0;
}

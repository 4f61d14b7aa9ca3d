#include "knobs.h"

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "recorder.h"

#define KNOB(name, kind, field, value, help)                                                       \
	{                                                                                          \
		name, kind, offsetof(struct logger_knobs, field), value, help, 0, NULL             \
	}
/* -jit:stress_stop_ms: a minute between stops is already no stress at all. */
enum { STRESS_STOP_MS_MAX = 60000 };

static const struct knob logger_knobs[] = {
    KNOB("-log", KNOB_BOOL, log, NULL, "record a pinball (0: only run under the JIT)"),
    KNOB("-log:basename", KNOB_PATH, basename, "B", "region k is written as pinball B.k"),
    KNOB("-q", KNOB_BOOL, quiet, NULL,
	 "quiet: no line on stderr about each pinball written or forked child not "
	 "recorded, no progress line"),
    KNOB("-log:fat", KNOB_BOOL, fat, NULL,
	 "1: every mapped page at region start; 0: those the region touches"),
    {.name = "-log:slice",
     .kind = KNOB_UINT,
     .offset = offsetof(struct logger_knobs, slice),
     .value = "N",
     .help = "in a region, a thread runs at least about N instructions before another waiting "
	     "thread gets its turn (0: the default)",
     .max = 1ull << 40},
    KNOB("-jit:check_native_exec", KNOB_BOOL, check_native_exec, NULL,
	 "keep app code non-executable, so any escape from the cache faults"),
    KNOB("-jit:selftest_escape", KNOB_BOOL, selftest_escape, NULL,
	 "(test) run app code natively once, to prove -jit:check_native_exec catches it"),
    {.name = "-jit:stress_stop_ms",
     .kind = KNOB_UINT,
     .offset = offsetof(struct logger_knobs, stress_stop_ms),
     .value = "N",
     .help = "(test) stop and resume every thread every N ms of CPU time; 0: never",
     .max = STRESS_STOP_MS_MAX},
    KNOB("-follow_execv", KNOB_BOOL, follow_execv, NULL,
	 "run programs the app execs under the JIT"),
    KNOB("-jit:session", KNOB_BOOL, session, NULL,
	 "the programs the app execs keep their translations for each other in a directory of "
	 "the run's, removed at its end (a program run again and again is translated once); "
	 "they run with address-space randomisation off"),
    KNOB("-pinplay-control", KNOB_BOOL, pinplay_control, NULL,
	 "analysis tools count inside the recorded (global) regions; 0: inside their own "
	 "per-thread -control regions"),
    {.name = "-jit:argv0",
     .kind = KNOB_WORD,
     .offset = offsetof(struct logger_knobs, argv0),
     .value = "NAME",
     .help = "(set when following execve) argv[0] to give the app",
     .unset = "PROGRAM"},
    {.name = "-jit:seccomp_fd",
     .kind = KNOB_UINT,
     .offset = offsetof(struct logger_knobs, seccomp_fd),
     .value = "FD",
     .help = "(set when following execve) the descriptor holding the app's seccomp filters",
     .max = 1u << 20},
    {.name = "-jit:session_dir",
     .kind = KNOB_STRING,
     .offset = offsetof(struct logger_knobs, session_dir),
     .value = "DIR",
     .help = "(set when following execve) the run's -jit:session directory"},
    {.name = "-jit:root_cwd",
     .kind = KNOB_STRING,
     .offset = offsetof(struct logger_knobs, root_cwd),
     .value = "DIR",
     .help = "(set when following execve) the directory the run started in: relative paths "
	     "in knobs are found from there"},
    {.name = "-log:root_pid",
     .kind = KNOB_UINT,
     .offset = offsetof(struct logger_knobs, root_pid),
     .value = "PID",
     .help = "(set when following execve) the process whose pinballs are B.k; those of "
	     "the others are B.pid<PID>.k",
     .max = 1u << 22},
    {.name = "-log:first_region",
     .kind = KNOB_UINT,
     .offset = offsetof(struct logger_knobs, first_region),
     .value = "K",
     .help = "(set when following execve) the number of this image's first region",
     .max = UINT32_MAX},
};

int knobs_parse(int argc, char **argv, struct logger_knobs *k)
{
	*k = (struct logger_knobs){.log = true,
				   .basename = "pinball/log",
				   .slice = RECORDER_DEFAULT_SLICE,
				   .follow_execv = true,
				   .pinplay_control = true,
				   .session = true};
	if (!shared_knobs_init(&k->shared)) {
		fprintf(stderr, "logger: error: out of memory\n");
		return 2;
	}
	const struct knob_set sets[] = {KNOB_SET(logger_knobs, k), shared_knob_set(&k->shared)};
	struct knobs_parser parser = KNOBS_PARSER("logger", "logger [knobs] [--] PROGRAM [ARGS...]",
						  "program", sets, k->shared.control);
	parser.base_dir = &k->root_cwd;
	int i = 1;
	while (i < argc && !k->program_index) {
		switch (knobs_step(&parser, argc, argv, &i)) {
		case KNOBS_TAKEN:
			break;
		case KNOBS_HELP:
			return -1;
		case KNOBS_ERROR:
			return 2;
		case KNOBS_POSITIONAL: /* `--` then the program, or the program itself */
			k->knob_end = i;
			k->program_index = strcmp(argv[i], "--") ? i : i + 1;
			break;
		}
	}
	if (!k->root_cwd)
		k->root_cwd = getcwd(NULL, 0); /* (NULL, the directory gone: paths stay relative) */
	k->basename_relative = k->basename[0] != '/';
	if (knobs_finish(&parser))
		return 2;
	if (!k->program_index || k->program_index >= argc) {
		fprintf(stderr, "logger: error: no program given (usage: logger [knobs] -- "
				"PROGRAM [ARGS...])\n");
		return 2;
	}
	/* Profiling and recording at once would make the recording pay for the profile:
	 * profile a replay of the pinball instead, as often as wanted. */
	if (k->log && k->shared.analysis.vprofile.plugin) {
		fprintf(stderr, "logger: error: -vprofile needs -log 0 (or replay the pinball "
				"with replayer -vprofile)\n");
		return 2;
	}
	char err[256];
	if (shared_knobs_check(&k->shared, err, sizeof err)) {
		fprintf(stderr, "logger: error: %s\n", err);
		return 2;
	}
	return 0;
}

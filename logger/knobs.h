/* The logger's command line: knobs, then `--` (optional) and the program with its args. */
#ifndef LOGGER_KNOBS_H
#define LOGGER_KNOBS_H

#include <stdbool.h>
#include <stdint.h>

#include "shared_knobs.h"

struct logger_knobs {
	bool log;		 /* -log 0|1: record a pinball (default 1) */
	const char *basename;	 /* -log:basename B: region k goes to B.k (default pinball/log) */
	bool fat;		 /* -log:fat 1: every mapped page at region start */
	bool quiet;		 /* -q: no line about each pinball written */
	uint64_t slice;		 /* -log:slice N: a thread's time slice in a region (0: default) */
	bool check_native_exec;	 /* -jit:check_native_exec */
	uint64_t stress_stop_ms; /* -jit:stress_stop_ms N (0: off) */
	bool selftest_escape;	 /* -jit:selftest_escape */
	bool follow_execv;	 /* -follow_execv 0|1 (default 1) */
	bool pinplay_control;	 /* -pinplay-control 0|1: tools follow the recorded regions */
	bool session;		 /* -jit:session 0|1: the run's processes share translations */
	const char *session_dir; /* -jit:session_dir DIR: the run's (set when following exec) */
	/* -jit:root_cwd DIR: where the run started, which relative paths in knobs name files
	 * from (set when following exec; else the working directory) */
	const char *root_cwd;
	bool basename_relative; /* -log:basename as given: the pinballs are named so */
	const char *argv0;	/* -jit:argv0 NAME: the app's argv[0] (set when following exec) */
	uint64_t seccomp_fd;	/* -jit:seccomp_fd FD: the app's seccomp filters (following exec) */
	/* Set when following exec: the process the user started (its pinballs are B.k, those
	 * of every other process B.pid<PID>.k), and this image's first region number. */
	uint64_t root_pid;
	uint64_t first_region;
	struct shared_knobs shared; /* analysis tools, controller, -jit:stats */
	int program_index;	    /* argv index of the program */
	int knob_end;		    /* argv index one past the last knob (before any `--`) */
};

/* Returns 0, or 2 after printing a one-line error (bad knob, bad -control, missing
 * program), or -1 when help was printed. */
int knobs_parse(int argc, char **argv, struct logger_knobs *k);

#endif

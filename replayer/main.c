/* replayer: re-executes a pinball's region deterministically and checks it.
 *
 *   replayer [knobs] PINBALL
 *
 * Prints on stderr `replay: OK <n> instructions, <t> threads, <s> syscalls injected`
 * (exit 0) or `replay: DIVERGED at tid <t> icount <n>: <what>` (exit 1); bad input exits 2. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analysis.h"
#include "control_engine.h"
#include "instrument.h"
#include "jit.h"
#include "jit_app.h"
#include "replay.h"
#include "replay_input.h"

enum { MAX_LAYOUT_TRIES = 8 };

struct knobs {
	bool echo;
	struct analysis_knobs analysis;
	struct control_spec *control; /* -control and the other controller knobs, finished */
	bool stats;
	const char *pinball;
};

static void usage(FILE *to)
{
	fprintf(to, "usage: replayer [knobs] PINBALL\n\nknobs:\n"
		    "  -replay:echo 0|1    write what the app wrote to fds 1 and 2 (default 1)\n"
		    "  -icount             count the instructions replayed per thread\n"
		    "  -oicount FILE       write the -icount report to FILE\n"
		    "  -mix                histograms of the instructions replayed\n"
		    "  -omix FILE          write the -mix report to FILE\n"
		    "  -footprint          cache lines and pages touched by loads, stores, code\n"
		    "  -ofootprint FILE    write the -footprint report to FILE\n"
		    "  -jit:stats          print code cache statistics at the end\n"
		    "  -control SPEC, -controller_log FILE and the other controller knobs of the\n"
		    "                      logger (docs/controller.md): the analysis tools count\n"
		    "                      inside those regions of the replay\n");
}

static bool bool_value(const char *s)
{
	return s && (!strcmp(s, "0") || !strcmp(s, "1"));
}

/* A boolean knob: alone it means 1; an explicit 0 or 1 may follow. */
static bool flag_value(int argc, char **argv, int *i)
{
	return !(*i + 1 < argc && bool_value(argv[*i + 1]) && argv[++*i][0] == '0');
}

static int parse(int argc, char **argv, struct knobs *k)
{
	*k = (struct knobs){.echo = true, .control = control_spec_new()};
	struct control_error cerr;
	if (!k->control) {
		fprintf(stderr, "replayer: error: out of memory\n");
		return 2;
	}
	for (int i = 1; i < argc; i++) {
		int taken = control_spec_take_knob(k->control, argc, argv, &i, &cerr);
		if (taken < 0) {
			fprintf(stderr, "replayer: %s\n", cerr.message);
			return 2;
		}
		if (taken > 0) {
			i--; /* (past the knob and its value already) */
			continue;
		}
		const char *a = argv[i];
		if (!strcmp(a, "-h") || !strcmp(a, "-help") || !strcmp(a, "--help")) {
			usage(stdout);
			return -1;
		}
		if (!strcmp(a, "-replay:echo") && i + 1 < argc && bool_value(argv[i + 1])) {
			k->echo = argv[++i][0] == '1';
		} else if (!strcmp(a, "-icount")) {
			k->analysis.icount = flag_value(argc, argv, &i);
		} else if (!strcmp(a, "-oicount") && i + 1 < argc) {
			k->analysis.oicount = argv[++i];
		} else if (!strcmp(a, "-mix")) {
			k->analysis.mix = flag_value(argc, argv, &i);
		} else if (!strcmp(a, "-omix") && i + 1 < argc) {
			k->analysis.omix = argv[++i];
		} else if (!strcmp(a, "-footprint")) {
			k->analysis.footprint = flag_value(argc, argv, &i);
		} else if (!strcmp(a, "-ofootprint") && i + 1 < argc) {
			k->analysis.ofootprint = argv[++i];
		} else if (!strcmp(a, "-jit:stats")) {
			k->stats = flag_value(argc, argv, &i);
		} else if (a[0] == '-') {
			fprintf(stderr,
				"replayer: error: unknown or incomplete knob '%s' (see "
				"replayer -help)\n",
				a);
			return 2;
		} else if (!k->pinball) {
			k->pinball = a;
		} else {
			fprintf(stderr, "replayer: error: one pinball at a time ('%s' is extra)\n",
				a);
			return 2;
		}
	}
	if (!k->pinball) {
		fprintf(stderr, "replayer: error: no pinball given (usage: replayer [knobs] "
				"PINBALL)\n");
		return 2;
	}
	if (control_spec_finish(k->control, &cerr)) {
		fprintf(stderr, "replayer: %s\n", cerr.message);
		return 2;
	}
	return 0;
}

/* The recorded addresses collide with the replayer's own mappings: run again with a new
 * random layout (the address-space randomisation of the next exec). */
static void retry_with_new_layout(char **argv)
{
	const char *tries = getenv("PINTRACE_REPLAY_LAYOUT_TRY");
	int n = tries ? atoi(tries) : 0;
	if (n >= MAX_LAYOUT_TRIES)
		return;
	char next[16];
	snprintf(next, sizeof next, "%d", n + 1);
	setenv("PINTRACE_REPLAY_LAYOUT_TRY", next, 1);
	execv("/proc/self/exe", argv);
}

static void forward_event(const struct control_event_info *ev, void *arg)
{
	(void)arg;
	analysis_event(ev);
}

int main(int argc, char **argv)
{
	struct knobs k;
	int status = parse(argc, argv, &k);
	if (status)
		return status < 0 ? 0 : status;

	static struct replay_input in;
	char err[1024];
	status = replay_input_load(k.pinball, &in, err, sizeof err);
	if (status == 3)
		retry_with_new_layout(argv);
	if (status) {
		fprintf(stderr, "replayer: error: %s\n", err);
		return 2;
	}
	if (in.has_brk && jit_app_brk_adopt(in.brk_start, in.brk_current, in.brk_mapped_end)) {
		fprintf(stderr, "replayer: error: the recorded program break at 0x%lx is in use\n",
			in.brk_start);
		return 2;
	}
	if (analysis_register(&k.analysis, err, sizeof err)) {
		fprintf(stderr, "replayer: error: %s\n", err);
		return 2;
	}
	if (analysis_wanted(&k.analysis) || k.control->log_file || k.control->nchains) {
		char *log = NULL;
		if (k.control->log_file &&
		    !(log = analysis_output_path(k.control->log_file, true, err, sizeof err))) {
			fprintf(stderr, "replayer: error: %s\n", err);
			return 2;
		}
		if (control_engine_start(k.control, forward_event, NULL, log, err, sizeof err)) {
			fprintf(stderr, "replayer: error: %s\n", err);
			return 2;
		}
	}
	static struct replay_options options;
	options.echo = k.echo;
	replay_start(&in, &options);

	struct jit_regs regs;
	memcpy(regs.gpr, in.start.gpr, sizeof regs.gpr);
	regs.rip = in.start.rip;
	regs.rflags = in.start.rflags;
	regs.fs_base = in.start.fs_base;
	regs.gs_base = 0;
	struct jit_run_options o = {.tool = "replayer", .stats = k.stats};
	return jit_run_state(&o, &regs, in.start.xsave, in.start.xsave_len);
}

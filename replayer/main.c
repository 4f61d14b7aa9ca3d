/* replayer: re-executes a pinball's region deterministically and checks it.
 *
 *   replayer [knobs] PINBALL
 *
 * Prints on stderr `replay: OK <n> instructions, <t> threads, <s> syscalls injected`
 * (exit 0) or `replay: DIVERGED at tid <t> icount <n>: <what>` (exit 1); bad input exits 2. */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "instrument.h"
#include "jit.h"
#include "jit_app.h"
#include "pinball.h"
#include "progress_line.h"
#include "regions_in.h"
#include "relog.h"
#include "replay.h"
#include "replay_input.h"
#include "shared_knobs.h"
#include "trace_knobs.h"
#include "writer_thread.h"

enum { MAX_LAYOUT_TRIES = 8 };

/* Instructions between two checkpoints of a replay under gdb: going back replays at most
 * this many (docs/performance.md). */
#define DEFAULT_CHECKPOINT_INTERVAL 100000000ull

struct knobs {
	bool echo;
	bool log;	      /* -log: relog the -control regions */
	const char *basename; /* -log:basename */
	const char *regions;  /* -log:regions:in */
	bool quiet;
	uint64_t checkpoints;	    /* -appdebug_checkpoints */
	struct shared_knobs shared; /* analysis tools, controller, -jit:stats */
	struct trace_knobs trace;   /* -trace, -o */
	const char *pinball;
};

#define KNOB(name, kind, field, value, help)                                                       \
	{                                                                                          \
		name, kind, offsetof(struct knobs, field), value, help, 0, NULL                    \
	}
static const struct knob replayer_knobs[] = {
    KNOB("-replay:echo", KNOB_BOOL, echo, NULL, "write what the app wrote to fds 1 and 2"),
    KNOB("-log", KNOB_BOOL, log, NULL, "relog: write the -control regions as new pinballs"),
    KNOB("-log:basename", KNOB_STRING, basename, "B", "relogged region k goes to pinball B.k"),
    KNOB("-log:regions:in", KNOB_STRING, regions, "FILE",
	 "relog the regions of a CSV file (lines <region>,<start icount>,<length>,...)"),
    KNOB("-q", KNOB_BOOL, quiet, NULL, "quiet: no progress line on a terminal"),
    {.name = "-appdebug_checkpoints",
     .kind = KNOB_UINT,
     .offset = offsetof(struct knobs, checkpoints),
     .value = "N",
     .help = "with -appdebug, reverse execution: a checkpoint every N instructions of the "
	     "replay (0: only at the region's start)",
     .max = UINT64_MAX},
};

static int parse(int argc, char **argv, struct knobs *k)
{
	*k = (struct knobs){
	    .echo = true, .checkpoints = DEFAULT_CHECKPOINT_INTERVAL, .basename = "pinball/log"};
	trace_knobs_init(&k->trace);
	if (!shared_knobs_init(&k->shared)) {
		fprintf(stderr, "replayer: error: out of memory\n");
		return 2;
	}
	const struct knob_set sets[] = {KNOB_SET(replayer_knobs, k), trace_knob_set(&k->trace),
					shared_knob_set(&k->shared)};
	const struct knobs_parser parser = KNOBS_PARSER("replayer", "replayer [knobs] [--] PINBALL",
							"pinball", sets, k->shared.control);
	for (int i = 1; i < argc;) {
		switch (knobs_step(&parser, argc, argv, &i)) {
		case KNOBS_TAKEN:
			continue;
		case KNOBS_HELP:
			return -1;
		case KNOBS_ERROR:
			return 2;
		case KNOBS_POSITIONAL:
			break;
		}
		if (strcmp(argv[i], "--") && k->pinball) {
			fprintf(stderr, "replayer: error: one pinball at a time ('%s' is extra)\n",
				argv[i]);
			return 2;
		}
		if (strcmp(argv[i], "--"))
			k->pinball = argv[i];
		i++;
	}
	if (!k->pinball) {
		fprintf(stderr, "replayer: error: no pinball given (usage: replayer [knobs] "
				"PINBALL)\n");
		return 2;
	}
	char err[512];
	/* Both write a block's inline trace record, and a block has one. */
	if (k->trace.format && k->shared.analysis.vprofile.plugin) {
		fprintf(stderr, "replayer: error: -trace and -vprofile cannot go together\n");
		return 2;
	}
	if (trace_knobs_check(&k->trace, err, sizeof err) ||
	    shared_knobs_check(&k->shared, err, sizeof err)) {
		fprintf(stderr, "replayer: error: %s\n", err);
		return 2;
	}
	if (k->regions &&
	    (!k->log || regions_in_load(k->regions, k->shared.control, err, sizeof err))) {
		fprintf(stderr, "replayer: error: %s\n",
			k->log ? err : "-log:regions:in needs -log");
		return 2;
	}
	return knobs_finish(&parser) ? 2 : 0;
}

static uint64_t recorded_instructions;

static void progress_text(char *buf, size_t cap, const struct progress_sample *s)
{
	char total[16];
	double done = recorded_instructions
			  ? 100.0 * (double)s->instructions / (double)recorded_instructions
			  : 100.0;
	snprintf(buf, cap, "replayer: %.0f%% of %s instructions (%.0f MIPS)", done,
		 progress_count(recorded_instructions, total, sizeof total), s->mips);
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

/* -log: the pinball writer thread, with the original pinball's header as the template of
 * the new ones (the same program, machine and start-up). */
static int start_relogging(const struct knobs *k, const struct replay_input *in, char *err,
			   size_t errlen)
{
	if (in->nthreads > 1) {
		snprintf(err, errlen, "-log: relogging a multithreaded pinball is not supported");
		return -1;
	}
	if (writer_make_parent_dirs(k->basename)) {
		snprintf(err, errlen, "-log: cannot create the directory of '%s': %s", k->basename,
			 strerror(errno));
		return -1;
	}
	char perr[PINBALL_ERR_MAX];
	struct pinball_reader *r = pinball_reader_open(k->pinball, perr);
	if (!r) {
		snprintf(err, errlen, "%s", perr);
		return -1;
	}
	/* The reader stays open: the header's strings are its own. */
	static struct pinball_header header;
	header = *pinball_reader_header(r);
	relog_start(k->basename, in);
	return writer_thread_start(&header, err, errlen);
}

int main(int argc, char **argv)
{
	struct knobs k;
	int status = parse(argc, argv, &k);
	if (status)
		return status < 0 ? 0 : status;

	static struct replay_input in;
	char err[1024];
	if (k.shared.jit_persist_dir &&
	    jit_persist_prepare(k.shared.jit_persist_dir, NULL, err, sizeof err)) {
		fprintf(stderr, "replayer: error: %s\n", err);
		return 2;
	}
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
	/* Under gdb the replay runs in a child process: this one keeps the stub (reverse
	 * execution; it returns from here only in the child). */
	k.shared.debug.reverse = true;
	k.shared.debug.checkpoint_interval = k.checkpoints;
	if (debugger_start(&k.shared.debug, "replayer", err, sizeof err)) {
		fprintf(stderr, "replayer: error: %s\n", err);
		return 2;
	}
	if (k.log && start_relogging(&k, &in, err, sizeof err)) {
		fprintf(stderr, "replayer: error: %s\n", err);
		return 2;
	}
	if (shared_knobs_start(&k.shared, k.log, false, k.log ? relog_event : NULL, NULL, err,
			       sizeof err)) {
		fprintf(stderr, "replayer: error: %s\n", err);
		return 2;
	}
	if (trace_knobs_start(&k.trace, &in, err, sizeof err)) {
		fprintf(stderr, "replayer: error: %s\n", err);
		return 2;
	}
	/* First: its guard sees the app's output before the replay echoes it. Not under gdb,
	 * whose terminal it is, and whose replay may go back. */
	if (!k.quiet && !k.shared.debug.on) {
		for (size_t i = 0; i < in.nthreads; i++)
			recorded_instructions += in.threads[i].end_icount;
		progress_line_start(progress_text);
	}
	static struct replay_options options;
	options.echo = k.echo;
	if (k.shared.debug.on) {
		options.region_start = debug_stop_region_start;
		options.output_new = debug_stop_output_new;
		options.death = debug_stop_death;
	}
	options.observer = k.log ? &relog_observer : NULL;
	if (!replay_start(&in, &options)) {
		fprintf(stderr, "replayer: error: out of memory\n");
		return 2;
	}

	static const struct debug_hooks replay_hooks = {.status = replay_debug_status,
							.thread_end = replay_debug_thread_end};
	if (in.program[0])
		jit_app_set_exe_path(in.program);
	if (debugger_register(&k.shared.debug, &replay_hooks, err, sizeof err)) {
		fprintf(stderr, "replayer: error: %s\n", err);
		return 2;
	}

	struct jit_regs regs;
	const struct replay_regs *first = &in.threads[0].start;
	memcpy(regs.gpr, first->gpr, sizeof regs.gpr);
	regs.rip = first->rip;
	regs.rflags = first->rflags;
	regs.fs_base = first->fs_base;
	regs.gs_base = 0;
	struct jit_run_options o = {.tool = "replayer",
				    .stats = k.shared.jit_stats,
				    .perf_map = k.shared.jit_perf_map,
				    .held_marks = (unsigned)k.shared.jit_held_marks,
				    .persist_dir = k.shared.jit_persist_dir};
	if (replay_guarded()) {
		o.watch_ms = 100;
		o.watch = replay_guard_watch;
	}
	jit_number_next_thread(in.threads[0].tid);
	return jit_run_state(&o, &regs, first->xsave, first->xsave_len);
}

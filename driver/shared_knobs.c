#include "shared_knobs.h"

#include <stddef.h>
#include <stdio.h>

#define SHARED(name, kind, field, value, help)                                                     \
	{                                                                                          \
		name, kind, offsetof(struct shared_knobs, field), value, help, 0, NULL             \
	}
/* A report file knob: unset, its report goes to stderr. */
#define REPORT(name, field, help)                                                                  \
	{                                                                                          \
		name, KNOB_PATH, offsetof(struct shared_knobs, field), "FILE", help, 0, "stderr"   \
	}
static const struct knob shared_knobs[] = {
    SHARED("-icount", KNOB_BOOL, analysis.icount, NULL, "count instructions per thread"),
    REPORT("-oicount", analysis.oicount, "write the -icount report to FILE"),
    SHARED("-mix", KNOB_BOOL, analysis.mix, NULL,
	   "histograms of the instructions run, by extension, category and mnemonic"),
    REPORT("-omix", analysis.omix, "write the -mix report to FILE"),
    SHARED("-footprint", KNOB_BOOL, analysis.footprint, NULL,
	   "distinct cache lines and pages touched by loads, stores and code"),
    REPORT("-ofootprint", analysis.ofootprint, "write the -footprint report to FILE"),
    SHARED("-debugtrace", KNOB_BOOL, analysis.debugtrace, NULL,
	   "a line per instruction run: thread, icount, pc, disassembly, memory and registers"),
    SHARED("-odebugtrace", KNOB_PATH, analysis.odebugtrace, "FILE",
	   "write -debugtrace to FILE (.gz, .xz: compressed)"),
    SHARED("-bbv", KNOB_BOOL, analysis.bbv, NULL,
	   "basic-block vectors per interval, in SimPoint's .bb format"),
    SHARED("-obbv", KNOB_PATH, analysis.obbv, "FILE", "write -bbv to FILE (thread N>0: FILE.tidN)"),
    SHARED("-vprofile", KNOB_STRING, analysis.vprofile.plugin, "PLUGIN",
	   "value profiling with the plug-in PLUGIN.so (a path), or a bundled one: classic, "
	   "address"),
    {"-vprofile_out", KNOB_PATH, offsetof(struct shared_knobs, analysis.vprofile.output), "FILE",
     "write the -vprofile profile to FILE (see pinball vplist)", 0, "NAME.vprof"},
    {"-vprofile:image", KNOB_UINT, offsetof(struct shared_knobs, analysis.vprofile.image), "N",
     "(set when following execve) the number of this process image's -vprofile profile", UINT32_MAX,
     NULL},
    {"-vprofile_values", KNOB_UINT, offsetof(struct shared_knobs, analysis.vprofile.values_kept),
     "N", "distinct values -vprofile keeps per instruction", 1u << 30, NULL},
    {"-vprofile_sample", KNOB_UINT, offsetof(struct shared_knobs, analysis.vprofile.sample), "N",
     "-vprofile profiles one of every N trace buffers of a thread (bursts of about 1 MiB of "
     "records; 1: every execution)",
     1u << 30, NULL},
    {"-bbv:interval", KNOB_UINT, offsetof(struct shared_knobs, analysis.bbv_interval), "N",
     "instructions per -bbv interval", 1000000000000ull, NULL},
    SHARED("-jit:stats", KNOB_BOOL, jit_stats, NULL, "print code cache statistics at exit"),
    SHARED("-jit:perf_map", KNOB_BOOL, jit_perf_map, NULL,
	   "write /tmp/perf-PID.map, naming each translation by the app code it runs, for perf"),
    SHARED("-jit:persist", KNOB_PATH, jit_persist_dir, "DIR",
	   "keep translations in DIR for the next runs (replays) of the same program (the "
	   "logger turns address-space randomisation off)"),
    {"-jit:held_marks", KNOB_UINT, offsetof(struct shared_knobs, jit_held_marks), "N",
     "-footprint's memory marks hold registers across runs of instructions (0: every mark "
     "sets its registers aside alone; 2: lines by shifts, not pext, as on CPUs where pext is "
     "slow)",
     2, NULL},
    SHARED("-appdebug", KNOB_BOOL, debug.on, NULL,
	   "debug the app with gdb: a stub on 127.0.0.1 waits for gdb before the first "
	   "instruction"),
    {.name = "-appdebug_port",
     .kind = KNOB_UINT,
     .offset = offsetof(struct shared_knobs, debug.port),
     .value = "N",
     .help = "the gdb stub's port (0: one the system chooses)",
     .max = 65535},
    SHARED("-appdebug_file", KNOB_PATH, debug.file, "F",
	   "write the gdb stub's port to F.<pid> (removed at exit)"),
};

bool shared_knobs_init(struct shared_knobs *k)
{
	*k = (struct shared_knobs){.control = control_spec_new()};
	k->analysis.odebugtrace = "debugtrace.out";
	k->analysis.obbv = "bbv.bb";
	k->analysis.bbv_interval = 10000000;
	k->analysis.vprofile.values_kept = VPROF_DEFAULT_VALUES_KEPT;
	k->analysis.vprofile.sample = 1;
	k->jit_held_marks = 1;
	return k->control != NULL;
}

struct knob_set shared_knob_set(struct shared_knobs *k)
{
	return KNOB_SET(shared_knobs, k);
}

struct forward {
	control_handler handler;
	void *arg;
	bool tools;
};

/* Every controller event goes to the driver's handler, then to the analysis tools. */
static void forward_event(const struct control_event_info *ev, void *arg)
{
	const struct forward *f = arg;
	if (f->handler)
		f->handler(ev, f->arg);
	if (f->tools)
		analysis_event(ev);
}

int shared_knobs_check(const struct shared_knobs *k, char *err, size_t errlen)
{
	/* A debugger's checkpoints are copies of the process without the profile's helper
	 * thread: going back would lose what the profile had gathered. */
	if (k->analysis.vprofile.plugin && k->debug.on) {
		snprintf(err, errlen, "-vprofile and -appdebug cannot go together");
		return -1;
	}
	return 0;
}

int shared_knobs_start(const struct shared_knobs *k, bool engine_needed, bool append_log,
		       control_handler handler, void *arg, char *err, size_t errlen)
{

	if (analysis_register(&k->analysis, err, errlen))
		return -1;
	if (!engine_needed && !analysis_wanted(&k->analysis) && !k->control->log_file &&
	    !k->control->nchains)
		return 0;
	char *log = NULL;
	if (k->control->log_file &&
	    !(log = analysis_output_path(k->control->log_file, !append_log, err, errlen)))
		return -1;
	static struct forward forward;
	forward = (struct forward){handler, arg, !k->tools_follow_driver};
	return control_engine_start(k->control, forward_event, &forward, log, err, errlen);
}

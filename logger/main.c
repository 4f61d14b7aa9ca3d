/* logger: runs a program under the JIT and (with -log 1) records a region of it. */
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <errno.h>
#include <sys/stat.h>

#include "header.h"
#include "jit.h"
#include "knobs.h"
#include "progress_text.h"
#include "recorder.h"
#include "trace_output.h"
#include "writer_thread.h"

extern char **environ;

/* The driver's path and knobs, for re-executing itself when the app calls execve. The
 * knobs about one image (-jit:argv0, -jit:seccomp_fd, -log:first_region) are left out: the
 * runtime gives the next image its own. The first process names itself as the root of every later
 * one. */
static char **reexec_prefix(char **argv, const struct logger_knobs *k, const char *self)
{
	char **v = calloc((size_t)k->knob_end + 9, sizeof *v);
	if (!v)
		return NULL;
	int n = 0;
	v[n++] = (char *)self;
	for (int i = 1; i < k->knob_end; i++) {
		if (!strcmp(argv[i], "-jit:argv0") || !strcmp(argv[i], "-jit:seccomp_fd") ||
		    !strcmp(argv[i], "-log:first_region")) {
			i++;
			continue;
		}
		v[n++] = argv[i];
	}
	if (k->session_dir && !k->root_pid) { /* (the others have it in their knobs already) */
		v[n++] = "-jit:session_dir";
		v[n++] = (char *)k->session_dir;
	}
	if (k->root_cwd && !k->root_pid) {
		v[n++] = "-jit:root_cwd";
		v[n++] = (char *)k->root_cwd;
	}
	if (!k->root_pid) {
		static char pid[24];
		snprintf(pid, sizeof pid, "%d", (int)getpid());
		v[n++] = "-log:root_pid";
		v[n++] = pid;
	}
	/* gdb's connection ends with the exec: the new program runs without the debugger
	 * (a later knob wins). */
	if (k->shared.debug.on) {
		v[n++] = "-appdebug";
		v[n++] = "0";
	}
	return v;
}

static bool is_root_process(const struct logger_knobs *k)
{
	return !k->root_pid || k->root_pid == (uint64_t)getpid();
}

/* B for the process the user started, B.pid<PID> for the others (forked, then exec'd). */
static const char *process_basename(const struct logger_knobs *k)
{
	if (is_root_process(k))
		return k->basename;
	static char name[PATH_MAX];
	snprintf(name, sizeof name, "%s.pid%d", k->basename, (int)getpid());
	return name;
}

/* A report file of a process other than the one the user started: FILE.pid<PID>, before
 * a compressing extension (trace.pid<PID>.xz), as its pinballs are B.pid<PID>.k; else all
 * the processes of a run wrote one file, the last to end winning. */
static const char *process_report(const char *file)
{
	if (!file)
		return NULL; /* (stderr) */
	char tag[32];
	snprintf(tag, sizeof tag, ".pid%d", (int)getpid());
	char *name = trace_output_tagged_path(file, tag);
	return name ? name : file;
}

static void process_reports(struct analysis_knobs *a)
{
	a->oicount = process_report(a->oicount);
	a->omix = process_report(a->omix);
	a->ofootprint = process_report(a->ofootprint);
	a->odebugtrace = process_report(a->odebugtrace);
	a->obbv = process_report(a->obbv);
}

/* gdb's `monitor` commands about recording (recorder.h). */
static const struct debug_hooks recording_hooks = {
    .record = recorder_debug_record,
    .frozen = recorder_debug_recording,
    .status = recorder_debug_status,
};

/* The controller's events go to the recorder (global regions), then the analysis tools. */
static void recorder_handler(const struct control_event_info *ev, void *arg)
{
	(void)arg;
	recorder_event(ev);
}

/* The analysis tools count inside the recorded regions: each thread's part of them, as the
 * recorder says (seed 000: -pinplay-control). */
static void tools_follow_recorder(const struct control_event_info *ev, void *arg)
{
	(void)arg;
	analysis_event(ev);
}

static struct file_id file_id_of(int fd)
{
	struct stat st;
	if (fstat(fd, &st))
		return (struct file_id){0};
	return (struct file_id){true, st.st_dev, st.st_ino};
}

static int start_recording(struct logger_knobs *k, int app_argc, char **app_argv)
{
	if (writer_make_parent_dirs(k->basename)) {
		fprintf(stderr, "logger: error: cannot create the directory of '%s': %m\n",
			k->basename);
		return -1;
	}
	static struct pinball_header header;
	header_describe_run(&header, app_argc, app_argv, environ);
	pinball_set_fd_policy(jit_runtime_fd, jit_runtime_fd_close);
	char err[512];
	if (writer_thread_start(&header, err, sizeof err)) {
		fprintf(stderr, "logger: error: %s\n", err);
		return -1;
	}
	static struct recorder_options options;
	options.basename = process_basename(k);
	options.first_region = (uint32_t)k->first_region;
	options.fat = k->fat;
	options.quiet = k->quiet;
	options.told_from = k->basename_relative ? k->root_cwd : NULL;
	options.root = is_root_process(k);
	options.session_dir = &k->session_dir;
	options.slice = k->slice;
	options.stdout_file = file_id_of(1);
	options.stderr_file = file_id_of(2);
	if (k->pinplay_control && analysis_wanted(&k->shared.analysis)) {
		options.region_observer = tools_follow_recorder;
		k->shared.tools_follow_driver = true;
	}
	recorder_start(&options);
	if (!k->quiet && is_root_process(k)) /* one line on the terminal, the first process's */
		progress_line_start(logger_progress_text);
	return 0;
}

int main(int argc, char **argv)
{
	struct logger_knobs k;
	int status = knobs_parse(argc, argv, &k);
	if (status)
		return status < 0 ? 0 : status;
	if (k.root_pid) /* (started by a followed execve: the user's variables are as given) */
		jit_restore_app_environment(environ);
	if (k.log && start_recording(&k, argc - k.program_index, argv + k.program_index))
		return 2;
	if (!is_root_process(&k))
		process_reports(&k.shared.analysis);
	char err[512];
	/* A process reached by following execve keeps appending to the same controller log. */
	bool followed = k.argv0 != NULL;
	if (shared_knobs_start(&k.shared, k.log, followed, k.log ? recorder_handler : NULL, NULL,
			       err, sizeof err)) {
		fprintf(stderr, "logger: error: %s\n", err);
		return 2;
	}
	if (debugger_start(&k.shared.debug, "logger", err, sizeof err) ||
	    debugger_register(&k.shared.debug, k.log ? &recording_hooks : NULL, err, sizeof err)) {
		fprintf(stderr, "logger: error: %s\n", err);
		return 2;
	}
	if (k.shared.jit_persist_dir &&
	    jit_persist_prepare(k.shared.jit_persist_dir, argv, err, sizeof err)) {
		fprintf(stderr, "logger: error: %s\n", err);
		return 2;
	}
	/* Without -jit:persist, the programs the run execs keep their translations for each
	 * other in its session directory (the process the user started translates alone); a
	 * recorded run's pinballs share their packed pages there, with -jit:persist too. */
	const char *persist_dir = k.shared.jit_persist_dir;
	if (!persist_dir && k.session_dir)
		persist_dir = k.session_dir;
	else if ((!persist_dir || k.log) && k.session && k.follow_execv && !k.root_pid)
		k.session_dir = jit_session_start();
	if (k.log)
		writer_thread_set_chunk_cache(k.session_dir, k.shared.jit_stats);
	static char self[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
	if (n <= 0) {
		fprintf(stderr, "logger: error: cannot find the logger's own path\n");
		return 1;
	}
	self[n] = '\0';
	struct jit_run_options o = {
	    .tool = "logger",
	    .check_native_exec = k.check_native_exec,
	    .stats = k.shared.jit_stats,
	    .perf_map = k.shared.jit_perf_map,
	    .persist_dir = persist_dir,
	    .session_dir = k.session_dir,
	    .held_marks = (unsigned)k.shared.jit_held_marks,
	    .selftest_escape = k.selftest_escape,
	    .stress_stop_ms = (unsigned)k.stress_stop_ms,
	    .follow_execv = k.follow_execv,
	    .argv0 = k.argv0,
	    .seccomp_fd = (int)k.seccomp_fd,
	    .reexec_argv = reexec_prefix(argv, &k, self),
	    .watch_ms = k.log ? RECORDER_WATCH_MS : 0,
	    .watch = recorder_watch,
	};
	return jit_run(&o, argv[k.program_index], argv + k.program_index, environ);
}

/* Recording regions into pinballs: the tracing tool's global-region policy (the seed's
 * four-step transition), and what a region records (DESIGN.md "Logger"). */
#ifndef LOGGER_RECORDER_H
#define LOGGER_RECORDER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "control_engine.h"
#include "output_echo.h"

struct recorder_options {
	const char *basename;  /* region k goes to <basename>.k */
	uint32_t first_region; /* k of the first region (the process's earlier images had the
				* others) */
	bool fat;	       /* every mapped page at region start, not only those touched */
	bool quiet;	       /* no word about the pinballs written */
	/* Pinballs under this directory are named from it (-log:basename given relative; NULL:
	 * their whole names). */
	const char *told_from;
	struct file_id stdout_file, stderr_file; /* the logger's own, for the replay's echo */
	uint64_t slice; /* instructions a thread runs before it passes the baton on (0: default) */
	/* Told where each thread's part of a region starts and stops, as events of that thread
	 * (pc 0 when between blocks), on an app thread; NULL: nobody (-pinplay-control). */
	control_handler region_observer;
	/* A pinball that cannot be written (a full disk) is named in one line, the process
	 * goes on unrecorded with its own exit status, and the process the user started
	 * (`root`) exits with 1 at its end; the others tell it through a file in the run's
	 * session directory (*session_dir, when it is set by then; NULL: none). */
	bool root;
	const char *const *session_dir;
};

/* The time slice of a region's threads when none is given (-log:slice). */
#define RECORDER_DEFAULT_SLICE 10000000
/* Slices of this many instructions or more are ended by the driver's watchdog, which calls
 * recorder_watch every RECORDER_WATCH_MS milliseconds (jit_run_options.watch); shorter
 * ones by checks in the code. */
#define RECORDER_WATCHED_SLICE 1000000
#define RECORDER_WATCH_MS 2
struct jit_thread *recorder_watch(void *arg);

/* Registers the recorder with the JIT (before the app starts). The writer thread must be
 * running. */
void recorder_start(const struct recorder_options *o);

/* For a progress report, from any thread: the number of the region under way (or of the
 * next one), and whether one is under way. */
void recorder_status(uint32_t *region, bool *recording);

/* The controller's events, forwarded by the driver. Start and stop act on the whole
 * process at the end of the triggering thread's basic block; events that arrive while a
 * transition is under way, or that would not change the state, are ignored (and logged). */
void recorder_event(const struct control_event_info *ev);

/* The debugger's hooks (debug_stop.h), on the stopped app thread: `monitor record on|off`
 * at callout c (the region starts or ends at c's instruction), whether a region is being
 * recorded (gdb may not change memory or registers then: the replay could not), and a
 * line for `monitor status`. */
struct jit_callout;
void recorder_debug_record(const struct jit_callout *c, bool on, char *reply, size_t size);
bool recorder_debug_recording(void);
void recorder_debug_status(char *out, size_t size);

#endif

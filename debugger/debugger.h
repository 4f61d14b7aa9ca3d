/* -appdebug: a GDB remote-protocol stub on 127.0.0.1, for the logger and the replayer.
 * Driver main thread (glibc), before the app starts. */
#ifndef DEBUGGER_H
#define DEBUGGER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "debug_stop.h"

struct debugger_knobs {
	bool on;	  /* -appdebug */
	uint64_t port;	  /* -appdebug_port N (0: the kernel chooses) */
	const char *file; /* -appdebug_file F: the port is written to F.<pid> */
	/* Set by the replayer: reverse execution, a checkpoint every `checkpoint_interval`
	 * instructions (-appdebug_checkpoints; 0: only at the region's start). */
	bool reverse;
	uint64_t checkpoint_interval;
};

/* Listens (a busy port is an error), writes the port file, prints where gdb connects and
 * starts the stub's helper thread; then debugger_register. The program's first thread
 * waits for gdb before its first instruction. 0, or -1 with a one-line reason in err.
 *
 * With k->reverse the replay runs in child processes (debugger/stop/checkpoints.c): the
 * calling process keeps the stub and never returns from here (it exits with the status of
 * the replay when that ends); the call returns 0 in the first child, which replays. */
int debugger_start(const struct debugger_knobs *k, const char *tool, char *err, size_t errlen);

/* Registers the app-thread side with its hooks, after the driver's other JIT clients (its
 * checks come last at each block start). 0, or -1 with a one-line reason in err. */
int debugger_register(const struct debugger_knobs *k, const struct debug_hooks *hooks, char *err,
		      size_t errlen);

#endif

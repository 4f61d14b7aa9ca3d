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
};

/* Listens (a busy port is an error), writes the port file, prints where gdb connects,
 * registers the app-thread side with its hooks and starts the stub's helper thread. The
 * program's first thread then waits for gdb before its first instruction. 0, or -1 with
 * a one-line reason in err. */
int debugger_start(const struct debugger_knobs *k, const char *tool,
		   const struct debug_hooks *hooks, char *err, size_t errlen);

#endif

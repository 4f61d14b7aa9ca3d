/* The debugger's app-thread side: a JIT client that stops threads at breakpoints, after
 * steps and watched accesses, at gdb's interrupt and at the program's first instruction,
 * and carries out the stub's requests while the world is stopped (debug_channel.h).
 * TLS-free, except debug_stop_register, which the driver calls before the app starts. */
#ifndef DEBUG_STOP_H
#define DEBUG_STOP_H

#include <stdbool.h>
#include <stddef.h>

#include "instrument.h"

/* What the driver adds to `monitor`, on the stopped app thread (TLS-free). */
struct debug_hooks {
	/* `record on` / `record off` at callout c: fires the region event and writes the
	 * one-line answer. NULL: nothing is recorded here (a replay). */
	void (*record)(const struct jit_callout *c, bool on, char *reply, size_t size);
	/* Whether gdb may not change the app's memory and registers now (a region is being
	 * recorded: its replay would not see the change). NULL: it may. */
	bool (*frozen)(void);
	/* One line for `monitor status`: what the driver is doing. */
	void (*status)(char *out, size_t size);
	/* A replay: thread `number`'s count at the region's end (false: no such thread).
	 * NULL: not known. */
	bool (*thread_end)(uint32_t number, uint64_t *icount);
};

/* The channel with the stub (debug_channel.h), in memory shared with the processes forked
 * later. Driver main thread, before anything forks; false when it cannot be mapped. */
bool debug_stop_map_channel(void);

/* Registers the client; the first thread stops before its first instruction and waits for
 * the stub. hooks must stay alive. at_end: what must go with the process when it exits or
 * dies (the port file), TLS-free. -1 when no per-thread counter is left. */
int debug_stop_register(const struct debug_hooks *hooks, void (*at_end)(void));

/* From the stub, while the app runs: every thread stops at the start of its next block
 * (one of them reports the interrupt). Repeated until a stop comes: a thread may overwrite
 * the request with its own count once. */
void debug_stop_interrupt(void);

/* Reverse execution (the replayer): the checkpoint of the region's start, on its first
 * thread before the others of the region's start are made. Returns here in the replay, and
 * again in each copy made from it when gdb goes back. TLS-free. */
void debug_stop_region_start(struct jit_thread *first);

/* A replay ends where the recorded app died of signal sig, with thread t at the instruction
 * that faulted (or where the signal found it): gdb sees the signal stop t there, and once it
 * resumes, the process's death by it, as in the recording. TLS-free. */
void debug_stop_death(struct jit_thread *t, int sig);

/* Whether the app's output at thread `number`'s count `icount` is new (echo it): false for a
 * stretch replayed again after going back, whose output was echoed the first time. */
bool debug_stop_output_new(uint32_t number, uint64_t icount);

#endif

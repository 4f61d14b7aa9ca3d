/* What a pinball says of the region's start and of a thread's state, as the recorder
 * and the replayer's relogger both write it into the record queue (app threads, TLS-free). */
#ifndef LOGGER_REGION_SNAPSHOT_H
#define LOGGER_REGION_SNAPSHOT_H

#include <stdbool.h>
#include <stdint.h>

#include "instrument.h"
#include "record_queue.h"

/* How a thread's recorded registers differ from those in its thread block. */
struct state_note {
	bool in_syscall; /* inside syscall nr (P.threads / P.end in_syscall) */
	long nr;
	bool after_syscall; /* the syscall returned: rax, and what the instruction sets */
	long result;
};

/* REC_THREAD (a start, icount 0) or REC_END (icount: the thread's region instructions) with
 * t's registers, extended state and signal mask, as the note says. */
void region_snapshot_state(enum record_kind kind, struct jit_thread *t, uint64_t icount,
			   const struct state_note *note);

/* A pinball `path` begins (REC_BEGIN, with the process's signal state as t sees it): the
 * program break and every mapping of the app, and with `fat` every readable page as it is
 * now. */
void region_snapshot_begin(const struct jit_thread *t, const char *path,
			   const struct pinball_cause *cause, bool fat);

#endif

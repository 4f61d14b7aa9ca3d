/* Inside libpintrace-replay: the child replayer (replaylib_child.c) and the stream it
 * sends (replaylib_stream.c). */
#ifndef REPLAYLIB_INTERNAL_H
#define REPLAYLIB_INTERNAL_H

#include <sys/types.h>

#include "pintrace_replay.h"

struct child {
	pid_t pid;
	int feed; /* the stream's read end */
	int err;  /* the child's stderr, read at the end */
};

/* Starts the replayer on the pinball, streaming into c->feed. 0, or -1 with the reason. */
int child_start(struct child *c, const char *pinball, unsigned flags, char *err, size_t errlen);

/* Stops it if it still runs (finished: it sent its end), reaps it, and returns 0 when it
 * ended OK; msg: its last line on stderr. */
int child_end(struct child *c, bool finished, char *msg, size_t msglen);

#endif

/* A replay shows what the recording showed: the bytes of the app's output that reached the
 * logger's stdout and stderr, written to the replayer's own. App thread, TLS-free. */
#ifndef REPLAYER_ECHO_H
#define REPLAYER_ECHO_H

#include "replay_input.h"

/* After the recorded syscall e (nr, args a) was injected. A stream that cannot be written
 * (a closed pipe: `replayer P | head`) is no longer echoed; the replay goes on unaffected. */
void echo_syscall(const struct replay_input *in, const struct replay_event *e, long nr,
		  const long a[6]);

#endif

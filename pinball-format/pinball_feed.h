/* The feed: a pinball's event streams and schedule, read ahead by a helper thread, for
 * consumers that run on app threads (the replayer's), where malloc, stdio and errno are
 * forbidden (DESIGN.md, "Process model").
 *
 * pinball_feed_start runs on a driver thread before the app starts: it opens the pinball and
 * starts one helper pthread that reads every events part and P.schedule and decodes their
 * records into self-contained blocks, keeping up to `depth` of them queued per stream. The
 * helper allocates and frees every block; consumers never allocate. The functions marked
 * APP-THREAD-SAFE use only atomics and raw futex system calls (library pinball_feed_app,
 * which the symbol-allowlist test checks); each stream has one consumer thread at a time. */
#ifndef PINBALL_FEED_H
#define PINBALL_FEED_H

#include "pinball.h"

struct pinball_feed;

/* Driver/helper thread only. depth 0 means 64; it is rounded up to a power of two >= 2. NULL with
 * err on failure (any reader error in P.meta or a part header). */
struct pinball_feed *pinball_feed_start(const char *basename, unsigned depth,
					char err[PINBALL_ERR_MAX]);
/* Driver/helper thread only, once no consumer is inside the feed: stops the helper and
 * frees everything, including the events consumers hold. */
void pinball_feed_stop(struct pinball_feed *f);

/* APP-THREAD-SAFE. The stream of tid's events, or -1 if the pinball has none. */
int pinball_feed_stream(const struct pinball_feed *f, uint32_t tid);
/* APP-THREAD-SAFE. Gives back the stream's previous event, then waits for its next one:
 * 1 with *ev, valid until the next call for this stream (or pinball_feed_stop); 0 at the end
 * of the stream; -1 on error (pinball_feed_error). */
int pinball_feed_next_event(struct pinball_feed *f, int stream, struct pinball_event **ev);
/* APP-THREAD-SAFE. The next slice of the schedule: 1, 0 at its end, -1 on error. */
int pinball_feed_next_slice(struct pinball_feed *f, struct pinball_slice *out);
/* APP-THREAD-SAFE. The first error the helper met, one line; "" if none. */
const char *pinball_feed_error(const struct pinball_feed *f);

#endif

/* Relogging: `replayer -log -control ... -log:basename B PINBALL` cuts the regions the
 * controller marks in a replay into new pinballs B.0, B.1, ... that replay on their own
 * (PinPlay's relogging). The logger's recorder cannot run inside a replay (there is no
 * kernel to record: the replay answers every syscall from the pinball, and injects the
 * non-deterministic instructions' results), so the relogger writes what the recorder would
 * have written from what the replay knows: at a region's start the thread's state and
 * every readable page (the fat form), during the region the pinball's own events at counts
 * shifted to the new start, at its end the thread's state. The records go through the
 * logger's record queue to its writer thread. Single-threaded pinballs. App threads,
 * TLS-free. */
#ifndef REPLAYER_RELOG_H
#define REPLAYER_RELOG_H

#include "control_engine.h"
#include "replay.h"

/* Driver thread, before the replay starts; the writer thread must be running. `in`, the
 * pinball replayed, must stay alive. */
void relog_start(const char *basename, const struct replay_input *in);

/* The controller's events (a control_handler). */
void relog_event(const struct control_event_info *ev, void *arg);

/* What the replay tells the relogger (replay_options.observer). */
extern const struct replay_observer relog_observer;

#endif

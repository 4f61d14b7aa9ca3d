/* A recorded process that forks while it maps writable memory MAP_SHARED: its child (not
 * recorded until it execs) may write there, and what the parent then reads is in no
 * pinball, so its replay diverges (docs/user-guide.md, Limits). The user hears it when it
 * happens, not from the replay. App threads, TLS-free. */
#ifndef LOGGER_SHARED_WITH_CHILD_H
#define LOGGER_SHARED_WITH_CHILD_H

/* The process (recording a region) forked `child` with a copy of its memory: warns, once
 * per process, when they share writable memory. */
void shared_with_child_check(long child);

#endif

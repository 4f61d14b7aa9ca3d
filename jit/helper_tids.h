/* The runtime's own helper threads (jit_helper_thread_start: a recording's writer, a
 * watcher, a trace tool's), by kernel thread id: the app is not shown them where it looks
 * at its own threads (/proc/self/task, the thread counts of /proc/self/status and stat). */
#ifndef JIT_HELPER_TIDS_H
#define JIT_HELPER_TIDS_H

#include <stdbool.h>

/* From the helper thread itself, as it starts and as it ends (a later thread of the app may
 * get its id). */
void helper_tids_note_self(void);
void helper_tids_forget_self(void);
/* In a forked child: it has none of its parent's helpers. */
void helper_tids_forget(void);
bool helper_tids_has(long tid);
/* The helpers alive now. */
long helper_tids_live(void);

#endif

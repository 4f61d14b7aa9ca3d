/* The runtime's one lock: translation, the fragment map, linking and the code cache are
 * shared by all app threads, and a thread holds this lock while it is in the dispatcher,
 * except while its syscall runs (which may block). */
#ifndef JIT_RUNTIME_LOCK_H
#define JIT_RUNTIME_LOCK_H

#include <stdbool.h>

void runtime_lock(void);
void runtime_unlock(void);
bool runtime_trylock(void);
/* Whether the calling thread holds it (code reached both from the dispatcher and from a
 * signal handler takes it only when it does not). */
bool runtime_lock_held(void);

#endif

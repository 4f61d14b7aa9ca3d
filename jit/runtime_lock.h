/* The runtime's one lock: translation, the fragment map, linking and the code cache are
 * shared by all app threads, and a thread holds this lock while it is in the dispatcher,
 * except while its syscall runs (which may block). */
#ifndef JIT_RUNTIME_LOCK_H
#define JIT_RUNTIME_LOCK_H

#include <stdbool.h>

void runtime_lock(void);
void runtime_unlock(void);
bool runtime_trylock(void);
/* From a signal handler interrupting app code: the thread takes the lock as if it were in
 * the dispatcher, so that a stop-the-world in progress counts it as stopped rather than
 * waiting for it. `t` is the interrupted thread's block. */
struct jit_thread;
void runtime_lock_from_handler(struct jit_thread *t);
void runtime_unlock_from_handler(struct jit_thread *t);

/* Whether the calling thread holds it (code reached both from the dispatcher and from a
 * signal handler takes it only when it does not). */
bool runtime_lock_held(void);

/* Frees the lock if the dead task `tid` held it: a vfork child shares the lock with its
 * parent and may have been killed inside the runtime. */
void runtime_lock_forget(long tid);

/* In a process forked by a thread that held the lock: that thread, whose kernel id changed,
 * still holds it. */
void runtime_lock_adopt(void);

#endif

/* A futex mutex usable from any thread, app or helper, without glibc's pthread state.
 * Zero-initialised memory is an unlocked mutex. */
#ifndef RT_MUTEX_H
#define RT_MUTEX_H

#include <stdbool.h>

typedef struct rt_mutex {
	int state; /* 0 free, 1 held, 2 held with waiters */
} rt_mutex;

#define RT_MUTEX_INIT                                                                              \
	{                                                                                          \
		0                                                                                  \
	}

void rt_mutex_lock(rt_mutex *m);
bool rt_mutex_trylock(rt_mutex *m);
void rt_mutex_unlock(rt_mutex *m);

#endif

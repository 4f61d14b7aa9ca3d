#include "rt_mutex.h"

#include "rt_syscall.h"

/* The three-state futex lock: waking is only paid when someone may be asleep. */

bool rt_mutex_trylock(rt_mutex *m)
{
	int expected = 0;
	return __atomic_compare_exchange_n(&m->state, &expected, 1, false, __ATOMIC_ACQUIRE,
					   __ATOMIC_RELAXED);
}

void rt_mutex_lock(rt_mutex *m)
{
	if (rt_mutex_trylock(m))
		return;
	while (__atomic_exchange_n(&m->state, 2, __ATOMIC_ACQUIRE) != 0)
		rt_futex_wait(&m->state, 2);
}

void rt_mutex_unlock(rt_mutex *m)
{
	if (__atomic_exchange_n(&m->state, 0, __ATOMIC_RELEASE) == 2)
		rt_futex_wake(&m->state, 1);
}

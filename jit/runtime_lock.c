#include "runtime_lock.h"

#include "rt_mutex.h"
#include "rt_syscall.h"
#include "thread_block.h"
#include "threads.h"

static rt_mutex lock;
static long owner; /* kernel tid of the holder, 0 when free */

void runtime_lock(void)
{
	rt_mutex_lock(&lock);
	__atomic_store_n(&owner, thread_current_os_tid(), __ATOMIC_RELAXED);
}

void runtime_unlock(void)
{
	__atomic_store_n(&owner, 0, __ATOMIC_RELAXED);
	rt_mutex_unlock(&lock);
}

bool runtime_trylock(void)
{
	if (!rt_mutex_trylock(&lock))
		return false;
	__atomic_store_n(&owner, thread_current_os_tid(), __ATOMIC_RELAXED);
	return true;
}

void runtime_lock_from_handler(struct jit_thread *t)
{
	__atomic_store_n(&t->in_runtime, 1, __ATOMIC_SEQ_CST);
	runtime_lock();
}

void runtime_unlock_from_handler(struct jit_thread *t)
{
	__atomic_store_n(&t->in_runtime, 0, __ATOMIC_SEQ_CST);
	runtime_unlock();
}

bool runtime_lock_held(void)
{
	return __atomic_load_n(&owner, __ATOMIC_RELAXED) == thread_current_os_tid();
}

void runtime_lock_forget(long tid)
{
	long held_by = tid;
	if (tid > 0 && __atomic_compare_exchange_n(&owner, &held_by, 0, false, __ATOMIC_RELAXED,
						   __ATOMIC_RELAXED))
		rt_mutex_unlock(&lock);
}

void runtime_lock_adopt(void)
{
	if (__atomic_load_n(&lock.state, __ATOMIC_RELAXED))
		__atomic_store_n(&owner, thread_current_os_tid(), __ATOMIC_RELAXED);
}

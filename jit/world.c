#include "world.h"

#include <stdbool.h>
#include <time.h>

#include "fragment.h"
#include "rt_syscall.h"
#include "runtime_lock.h"
#include "threads.h"

static uint64_t stops;

static bool stopped(const struct jit_thread *t)
{
	return __atomic_load_n(&t->exited, __ATOMIC_ACQUIRE) ||
	       __atomic_load_n(&t->in_runtime, __ATOMIC_SEQ_CST) ||
	       (t->parent_goes_on && thread_process_ended(t)); /* killed in the cache */
}

static void wait_stopped(const struct jit_thread *t, const struct jit_thread *self)
{
	while (t != self && !stopped(t)) {
		struct timespec pause = {0, 20000};
		rt_syscall2(SYS_nanosleep, (long)&pause, 0);
	}
}

void world_stop(const struct jit_thread *self)
{
	fragment_unlink_all();
	for (size_t i = 0; i < threads_count(); i++)
		thread_clear_ibl(threads_at(i));
	for (size_t i = 0; i < threads_vfork_slots(); i++)
		if (threads_vfork_child_at(i))
			thread_clear_ibl(threads_vfork_child_at(i));
	for (size_t i = 0; i < threads_count(); i++)
		wait_stopped(threads_at(i), self);
	/* vfork children run from the same cache (they leave the list under the lock we hold) */
	for (size_t i = 0; i < threads_vfork_slots(); i++)
		if (threads_vfork_child_at(i))
			wait_stopped(threads_vfork_child_at(i), self);
	stops++;
}

uint64_t world_stops(void)
{
	return stops;
}

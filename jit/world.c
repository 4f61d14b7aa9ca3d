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
	       __atomic_load_n(&t->in_runtime, __ATOMIC_SEQ_CST);
}

void world_stop(const struct jit_thread *self)
{
	fragment_unlink_all();
	for (size_t i = 0; i < threads_count(); i++)
		thread_clear_ibl(threads_at(i));
	for (size_t i = 0; i < threads_count(); i++) {
		const struct jit_thread *t = threads_at(i);
		while (t != self && !stopped(t)) {
			struct timespec pause = {0, 20000};
			rt_syscall2(SYS_nanosleep, (long)&pause, 0);
		}
	}
	stops++;
}

uint64_t world_stops(void)
{
	return stops;
}

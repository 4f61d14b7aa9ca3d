/* Threads waiting in jit_wait_unlocked across a fork: which are frozen in a copy, and how
 * they get kernel threads of their own again (park.S does the register work). */
#include <linux/sched.h>
#include <sys/syscall.h>

#include "park.h"
#include "rt_syscall.h"
#include "signals.h"
#include "threads.h"

/* park.S: where a frozen thread's new kernel thread starts, to resume its wait. */
void park_thread_start(struct jit_thread *t);

/* The new kernel thread, on t's stack with %gs and %fs set, before it waits again. */
void park_revived(struct jit_thread *t);
void park_revived(struct jit_thread *t)
{
	t->os_tid = (int32_t)rt_gettid();
	signals_revive_thread(t);
}

static bool is_waiting(const struct jit_thread *t)
{
	return __atomic_load_n(&t->park.waiting, __ATOMIC_ACQUIRE) != 0;
}

bool jit_others_waiting(const struct jit_thread *self)
{
	for (size_t i = 0; i < threads_count(); i++) {
		const struct jit_thread *t = threads_at(i);
		if (t != self && !__atomic_load_n(&t->exited, __ATOMIC_ACQUIRE) && !is_waiting(t))
			return false;
	}
	return true;
}

void park_freeze_waiting(struct jit_thread *self)
{
	for (size_t i = 0; i < threads_count(); i++) {
		struct jit_thread *t = threads_at(i);
		if (t == self || t->exited)
			continue;
		if (is_waiting(t))
			t->park.frozen = 1;
		else
			threads_exiting(t);
	}
}

long jit_thaw_threads(struct jit_thread *self)
{
	const unsigned long flags =
	    CLONE_VM | CLONE_FS | CLONE_FILES | CLONE_SIGHAND | CLONE_THREAD | CLONE_SYSVSEM;
	for (size_t i = 0; i < threads_count(); i++) {
		struct jit_thread *t = threads_at(i);
		if (t == self || t->exited || !t->park.frozen)
			continue;
		long r = jit_clone_onto(flags, t, NULL, NULL, t->park.rsp, park_thread_start);
		if (r < 0)
			return r;
		t->os_tid = (int32_t)r; /* known here before the thread sets it itself */
		t->park.frozen = 0;
	}
	return 0;
}

/* -jit:stress_stop_ms N: a helper thread that stops every app thread at a safe point and
 * lets them go again, every N milliseconds of the process's CPU time, for the whole run. It
 * proves stop-the-world safe under real programs (tests run their multithreaded apps with
 * it). CPU time, not wall time: on a loaded machine the app's threads get little of the
 * wall clock, and a stop costs them a wake-up each; stops every wall millisecond then left
 * them almost no time to run (a test 15 times slower on a busy 2-core machine). */
#include "stress_stop.h"

#include <time.h>

#include "../runtime_lock.h"
#include "../world.h"
#include "jit.h"

static uint64_t process_cpu_ns(void)
{
	struct timespec now;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &now);
	return (uint64_t)now.tv_sec * 1000000000u + (uint64_t)now.tv_nsec;
}

static void *stopper(void *arg)
{
	unsigned ms = (unsigned)(unsigned long)arg;
	struct timespec period = {ms / 1000, (long)(ms % 1000) * 1000000L};
	for (;;) {
		uint64_t due = process_cpu_ns() + (uint64_t)ms * 1000000u;
		do
			nanosleep(&period, NULL);
		while (process_cpu_ns() < due);
		runtime_lock();
		world_stop(NULL);
		runtime_unlock();
	}
	return NULL;
}

int stress_stop_start(unsigned ms)
{
	return jit_helper_thread_start(stopper, (void *)(unsigned long)ms);
}

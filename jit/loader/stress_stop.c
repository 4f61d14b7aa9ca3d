/* -jit:stress_stop_ms N: a helper thread that stops every app thread at a safe point and
 * lets them go again, every N milliseconds, for the whole run. It proves stop-the-world
 * safe under real programs (tests run their multithreaded apps with it). */
#include "stress_stop.h"

#include <pthread.h>
#include <signal.h>
#include <time.h>

#include "../runtime_lock.h"
#include "../world.h"

static void *stopper(void *arg)
{
	unsigned ms = (unsigned)(unsigned long)arg;
	struct timespec period = {ms / 1000, (long)(ms % 1000) * 1000000L};
	for (;;) {
		nanosleep(&period, NULL);
		runtime_lock();
		world_stop(NULL);
		runtime_unlock();
	}
	return NULL;
}

int stress_stop_start(unsigned ms)
{
	sigset_t all, old;
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	pthread_t t;
	int rc = pthread_create(&t, NULL, stopper, (void *)(unsigned long)ms);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (rc == 0)
		pthread_detach(t);
	return rc;
}

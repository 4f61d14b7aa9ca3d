/* The driver's watchdog (jit_run_options.watch): a helper thread that asks, every watch_ms
 * milliseconds, whether a thread must stop, and stops it at a safe point. The question costs
 * the app nothing; the stop, which unlinks the whole cache, comes only when asked for. */
#include "watch.h"

#include <time.h>

#include "../runtime_lock.h"
#include "../world.h"
#include "instrument.h"
#include "jit.h"

/* Copied: the options may live on a stack the app's run does not keep. */
static struct jit_thread *(*watch)(void *arg);
static void *watch_arg;
static unsigned watch_ms;

static void *watcher(void *arg)
{
	(void)arg;
	struct timespec period = {watch_ms / 1000, (long)(watch_ms % 1000) * 1000000L};
	for (;;) {
		nanosleep(&period, NULL);
		struct jit_thread *t = watch(watch_arg);
		if (!t)
			continue;
		/* A thread running a loop linked to itself leaves it only once the links are
		 * undone: stop the world, then ask. */
		runtime_lock();
		world_stop(NULL);
		jit_request_safe_point(t);
		runtime_unlock();
	}
	return NULL;
}

int watch_start(const struct jit_run_options *o)
{
	watch = o->watch;
	watch_arg = o->watch_arg;
	watch_ms = o->watch_ms;
	return jit_helper_thread_start(watcher, NULL);
}

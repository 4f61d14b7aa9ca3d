/* The driver's watchdog (jit_run_options.watch): a helper thread that asks, every watch_ms
 * milliseconds, whether a thread must stop, and stops it at a safe point. The question costs
 * the app the runtime lock for a moment; the stop, which unlinks the whole cache (and the
 * links come back as the threads run on), only when asked for. */
#include "watch.h"

#include <time.h>

#include "../runtime_lock.h"
#include "../threads.h"
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
		runtime_lock();
		struct jit_thread *t = watch(watch_arg);
		if (t && !__atomic_load_n(&t->exited, __ATOMIC_ACQUIRE)) {
			/* A thread running a loop linked to itself leaves it only once the links
			 * are undone; none is made again until it has had its safe point. */
			world_stop(NULL);
			thread_want_safe_point(t);
		}
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

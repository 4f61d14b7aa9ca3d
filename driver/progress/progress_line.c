#include "progress_line.h"

#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

#include "instrument.h"
#include "progress_guard.h"

enum { PERIOD_MS = 250, FIRST_AFTER_MS = 1000 };

static progress_describe describe;

static void sleep_ms(long ms)
{
	struct timespec ts = {ms / 1000, (ms % 1000) * 1000000};
	while (nanosleep(&ts, &ts))
		;
}

const char *progress_count(uint64_t n, char *buf, size_t cap)
{
	static const char units[] = " KMGTP";
	double v = (double)n;
	size_t u = 0;
	while (v >= 1000 && u + 1 < sizeof units - 1) {
		v /= 1000;
		u++;
	}
	if (u)
		snprintf(buf, cap, "%.1f%c", v, units[u]);
	else
		snprintf(buf, cap, "%llu", (unsigned long long)n);
	return buf;
}

static void *redraw(void *arg)
{
	(void)arg;
	sleep_ms(FIRST_AFTER_MS); /* a short run shows nothing */
	struct progress_sample s = {jit_total_icount(), 0};
	for (;;) {
		sleep_ms(PERIOD_MS);
		uint64_t now = jit_total_icount();
		s.mips = (double)(now - s.instructions) / (PERIOD_MS * 1000.0);
		s.instructions = now;
		char text[256];
		describe(text, sizeof text, &s);
		progress_guard_draw(text);
	}
	return NULL;
}

void progress_line_start(progress_describe d)
{
	if (!isatty(2))
		return;
	describe = d;
	progress_guard_register();
	sigset_t all, old;
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old); /* the helper inherits: no signal for it */
	pthread_t thread;
	if (pthread_create(&thread, NULL, redraw, NULL) == 0)
		pthread_detach(thread);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
}

/* Words and numbers for people: names of events and instructions, sizes. */
#include <stdio.h>

#include "pinball.h"

const char *pinball_insn_name(enum pinball_insn_kind kind)
{
	static const char *const names[] = {"?",      "rdtsc", "rdtscp", "rdrand",
					    "rdseed", "rdpid", "cpuid",	 "xgetbv"};
	return (unsigned)kind < sizeof names / sizeof names[0] ? names[kind] : "?";
}

const char *pinball_event_name(enum pinball_event_kind kind)
{
	switch (kind) {
	case PINBALL_EV_SYSCALL:
		return "syscall";
	case PINBALL_EV_INSN:
		return "insn";
	case PINBALL_EV_SIGNAL:
		return "signal";
	case PINBALL_EV_THREAD_CREATE:
		return "thread_create";
	case PINBALL_EV_THREAD_EXIT:
		return "thread_exit";
	}
	return "?";
}

const char *pinball_human_size(uint64_t bytes, char *buf, size_t cap)
{
	static const char *const units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
	double v = (double)bytes;
	size_t u = 0;
	while (v >= 1024 && u + 1 < sizeof units / sizeof units[0]) {
		v /= 1024;
		u++;
	}
	snprintf(buf, cap, u ? "%.1f %s" : "%.0f %s", v, units[u]);
	return buf;
}

/* replayer -trace feed: the replay's instructions for the replay library (feed_format.h),
 * made on a helper thread (driver side: the set-up). */
#ifndef TOOL_FEED_H
#define TOOL_FEED_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct feed_thread {
	uint32_t tid;
	bool at_start;
	bool in_syscall; /* at the start, inside a system call: it returns first */
	uint64_t gpr[16], rip, rflags, fs_base;
};

struct feed_range {
	uint64_t addr;
	uint32_t prot;
	uint64_t len;
	const void *data; /* readable now, in this process */
};

/* Before the app starts: writes the header, the threads and (memory: the ranges) to path
 * (a pipe, usually), then streams the instructions from a helper thread; with regs, each
 * instruction's registers too. 0, or -1 with a one-line reason. */
int feed_start(const char *path, bool regs, const struct feed_thread *threads, size_t nthreads,
	       const struct feed_range *memory, size_t nranges, char *err, size_t errlen);

#endif

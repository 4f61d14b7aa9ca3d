/* What the driver decided before the app started; read-only once the app runs. */
#ifndef JIT_CONFIG_H
#define JIT_CONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum { HELD_MARKS_NEVER, HELD_MARKS_FAST, HELD_MARKS_SHIFTS };

struct jit_config {
	/* App code pages are never executable, so any escape from the cache faults. */
	bool check_native_exec;
	bool stats;
	bool perf_map; /* -jit:perf_map (perf_map.h) */
	/* Memory marks may hold registers across runs of instructions (memory_marks.h):
	 * HELD_MARKS_NEVER, _FAST (pext where the CPU runs it fast), _SHIFTS (never pext). */
	uint8_t held_marks;
	/* Self-test of check_native_exec: leave the cache once, on purpose (never in use). */
	bool selftest_escape;
	/* Follow execve under the JIT by re-executing the driver with the same knobs. */
	bool follow_execv;
	/* The driver's own argv up to (not including) the program: path of the driver binary
	 * first, then its knobs. NULL-terminated. */
	char *const *reexec_argv;
	/* What the app reads about itself (the kernel would answer about the driver). */
	const char *app_exe_path; /* absolute, as /proc/self/exe shows it */
	const char *app_cmdline;  /* argv strings, each NUL-terminated */
	size_t app_cmdline_len;
	const char *app_environ; /* the environment's strings at start, each NUL-terminated */
	size_t app_environ_len;
	const void *app_auxv; /* the auxiliary vector as built for the app */
	size_t app_auxv_len;
};

extern struct jit_config jit_config;

#endif

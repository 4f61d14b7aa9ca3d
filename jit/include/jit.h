/* The JIT's entry point for the drivers (logger, replayer): load a program and run it
 * entirely from the code cache. Called on the driver's main thread, where glibc is fine. */
#ifndef JIT_H
#define JIT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct jit_run_options {
	const char *tool;	/* "logger": prefix of every message */
	bool check_native_exec; /* app code pages never executable (tests) */
	bool stats;		/* -jit:stats */
	bool perf_map;		/* -jit:perf_map */
	/* -jit:persist: translations kept in this directory across processes (NULL: none);
	 * the driver has prepared it (jit_persist_prepare) */
	const char *persist_dir;
	/* -jit:session: the run's session directory (jit_session_start's, or the one passed
	 * on by the process that exec'd this one), or NULL; its maker removes it at its end,
	 * and the programs exec'd run without address-space randomisation */
	const char *session_dir;
	unsigned held_marks;	  /* -jit:held_marks: 0 never hold registers, 1 hold, 2 hold
				   * and find lines without pext */
	unsigned stress_stop_ms;  /* -jit:stress_stop_ms: stop the world this often (0: never) */
	bool selftest_escape;	  /* -jit:selftest_escape: jump to app code natively once */
	bool follow_execv;	  /* -follow_execv */
	const char *argv0;	  /* what the app sees as argv[0]; NULL: the program as given */
	char *const *reexec_argv; /* driver path and knobs, NULL-terminated, to follow execve */
	int seccomp_fd;		  /* the app's seccomp filters, from the image before (0: none) */
	/* A watchdog (0 ms: none): every watch_ms milliseconds a helper thread calls
	 * watch(watch_arg) under the runtime's lock, which may read the threads' instruction
	 * counts (approximate while they run) and return a thread that must stop at a safe
	 * point, where its clients' safe_point hooks run; or NULL. */
	unsigned watch_ms;
	struct jit_thread *(*watch)(void *arg);
	void *watch_arg;
};

/* A descriptor of the runtime's own (the pinball writer's files, the controller's log)
 * moved out of the app's way, into numbers its close, close_range, dup2 and dup3 cannot
 * reach and that do not count against the limit it sees: returns the new number (fd is
 * closed), or fd itself when there is no room. Any thread, before or while the app runs;
 * TLS-free. Close it with jit_runtime_fd_close. */
int jit_runtime_fd(int fd);
int jit_runtime_fd_close(int fd); /* close's result */

struct jit_regs;

/* Starts fn(arg) on a detached helper thread of the driver's that blocks every signal (the
 * app's signals are the runtime's to take, on the app's threads). pthread_create's result. */
int jit_helper_thread_start(void *(*fn)(void *arg), void *arg);

/* Starts a thread in the state `regs` (with the xsave image), in memory the caller has
 * prepared. Returns only on failure (exit status, message printed). */
int jit_run_state(const struct jit_run_options *o, const struct jit_regs *regs,
		  const uint8_t *xsave, size_t xsave_len);

/* For -jit:persist DIR: creates DIR if needed. With argv (the logger: the program and its
 * libraries must come out at the same addresses every run), unless address-space
 * randomisation is off already, turns it off and executes the driver again with argv (the
 * same process: only on success does it not return); NULL for a replay, whose program is
 * where its pinball says (the runtime's own addresses do not matter). Returns 0, or -1
 * with a message in err. */
int jit_persist_prepare(const char *dir, char *const *argv, char *err, size_t err_len);

/* For -jit:session, in the process the user started (the logger's): a new directory of the
 * run's own in $TMPDIR (or /tmp), where the programs that this process and its children
 * exec keep their translations for each other (-jit:persist's files: a program run again
 * and again, by a script or a build, is translated once); given as jit_run_options'
 * session_dir, the programs the run execs also run with address-space randomisation off,
 * so that one process's translations fit the next. Removes the directories of earlier
 * runs whose process is gone. Returns the directory, or NULL (no session). */
const char *jit_session_start(void);

/* In a driver that a followed execve started, before anything reads the environment: the
 * app's environment as the app had it, where the execve renamed the dynamic linker's
 * variables so that the driver's own ld.so would not act on them (jit/exec_env.h). In
 * place, in the same order. */
void jit_restore_app_environment(char **envp);

/* Starts `program` with argv[1..] as its arguments and envp as its environment. Returns
 * only when the program cannot be started: the message is printed, and the result is the
 * exit status to use (127: not found, 126: not executable or not supported, 1: other). */
int jit_run(const struct jit_run_options *o, const char *program, char *const *argv,
	    char *const *envp);

#endif

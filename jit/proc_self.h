/* What the app reads about itself through /proc: the kernel would describe the driver,
 * so these paths are answered with the app's own exe, command line and auxv. */
#ifndef JIT_PROC_SELF_H
#define JIT_PROC_SELF_H

#include <stdbool.h>

/* readlink/readlinkat of an exe link of this process: fills *result and returns true. */
bool proc_self_readlink(int dirfd, const char *path, char *buf, long size, long *result);
/* The program an execve of `path` runs: /proc/self/exe (and its other names) is the app's
 * program, not the runtime's, which the kernel would find there. */
const char *proc_self_exec_path(const char *path);

/* openat of this process's cmdline, auxv or exe: fills *result (fd or -errno), true. */
bool proc_self_open(int dirfd, const char *path, int flags, int mode, long *result);

#endif

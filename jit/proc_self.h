/* What the app reads about itself through /proc: the kernel would describe the driver,
 * so these paths are answered with the app's own exe, command line and auxv. */
#ifndef JIT_PROC_SELF_H
#define JIT_PROC_SELF_H

#include <stdbool.h>
#include <stddef.h>

#include "thread_block.h"

/* readlink/readlinkat of an exe link of this process: fills *result and returns true. */
bool proc_self_readlink(int dirfd, const char *path, char *buf, long size, long *result);
/* The program an execve of `path` runs: /proc/self/exe (and its other names) is the app's
 * program, not the runtime's, which the kernel would find there. */
const char *proc_self_exec_path(const char *path);
/* Whether app path `path` names one of this process's descriptors (/proc/self/fd/N and its
 * other names, /dev/fd/N): *fd is then N. */
bool proc_self_fd_path(const char *path, long *fd);

/* The pid of the process that ptraces this one (/proc/self/status TracerPid), 0: none. */
int proc_self_tracer(void);

/* openat of this process's cmdline, auxv, exe, or (read-only) maps or smaps, or status
 * when thread t has seccomp filters or strict mode: fills *result (fd or -errno), true. */
bool proc_self_open(const struct jit_thread *t, int dirfd, const char *path, int flags, int mode,
		    long *result);

/* A memory file holding `len` bytes, positioned at 0: what the app reads instead of a
 * /proc file of the runtime's process. Its descriptor, or -errno. */
long proc_self_memory_file(const char *name, const void *data, size_t len, int flags);

#endif

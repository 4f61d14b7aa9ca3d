/* The runtime's file descriptors live in a window of numbers the app does not use: above
 * the app's RLIMIT_NOFILE when the hard limit allows raising the real one (the app is
 * shown its own limit), otherwise just below the smaller of its limit and 4096. The app's
 * close, close_range, dup2 and dup3 cannot reach them (DynamoRIO's technique of "stolen"
 * descriptors), and they do not count against the limit the app sees. */
#ifndef JIT_RUNTIME_FDS_H
#define JIT_RUNTIME_FDS_H

#include <stdbool.h>

/* Chooses the window and grows the descriptor table to hold it: before the process has a
 * second thread (the first jit_runtime_fd does it otherwise). */
void runtime_fds_prepare(void);

/* Whether fd is one of the runtime's (any thread, lock-free). */
bool runtime_fds_owns(long fd);

/* The app's syscalls on descriptors and on RLIMIT_NOFILE, when they need the runtime's
 * care: true with *result when handled, false to let the kernel do it. */
bool runtime_fds_syscall(long nr, const long a[6], long *result);

/* After the kernel made syscall nr: a new descriptor the app's limit would not have allowed
 * (the real limit is higher, for the window) is closed again, and the result is EMFILE. */
long runtime_fds_result(long nr, const long a[6], long result);

/* The real limit is the app's own while a followed or native execve runs (the next image,
 * or the native program, must see the app's); put back when it fails. */
void runtime_fds_before_exec(void);
void runtime_fds_after_failed_exec(void);

#endif

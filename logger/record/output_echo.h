/* What of the app's output reached the logger's own stdout and stderr, so that a replay
 * can show exactly that (whatever the app's fd numbers: dup2, pipes, files it reopened).
 * An fd is echoed when it refers to the same file as the logger's stdout or stderr did at
 * start-up (same device and inode: a terminal, a pipe, a file). App threads, TLS-free. */
#ifndef LOGGER_OUTPUT_ECHO_H
#define LOGGER_OUTPUT_ECHO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* A file as fstat names it. */
struct file_id {
	bool valid;
	uint64_t dev, ino;
};

/* The logger's stdout and stderr (driver thread, before the app starts). */
void output_echo_init(struct file_id out, struct file_id err);

/* 1 when fd is the logger's stdout, 2 its stderr, 0 neither (fd 2 is stderr even when
 * both are the same terminal). */
uint32_t output_echo_stream(int fd);

/* Performs a call that copies inside the kernel (sendfile, splice, copy_file_range) to an
 * echoed fd as a read and a write, so that the bytes can be recorded: returns the call's
 * result (at most `cap` bytes moved, which the calls allow) with the bytes in buf. The
 * offsets the call updates are updated in app memory. false: not such a call (tee), or
 * one the kernel would refuse for these files (it then runs as it is, not echoed). */
bool output_echo_copy(long nr, const long args[6], uint8_t *buf, size_t cap, long *result);

#endif

/* Copies between the runtime and app memory that fail instead of faulting (a bad pointer
 * the app gave a syscall is its EFAULT, not the runtime's crash), and that ask a client for
 * withheld pages (first-touch recording) before giving up. App threads only: a fault in
 * app_copy_in is the runtime's fault handler's to turn into a failure. */
#ifndef JIT_APP_COPY_H
#define JIT_APP_COPY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

bool app_copy_in(void *dst, uint64_t src, size_t len);
bool app_copy_out(uint64_t dst, const void *src, size_t len);
/* The NUL-terminated string at src into dst (cap bytes); false when some byte of it cannot
 * be read or it does not fit. */
bool app_copy_string(char *dst, uint64_t src, size_t cap);

#endif

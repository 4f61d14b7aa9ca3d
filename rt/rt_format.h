/* printf-style formatting without glibc's stdio or locale (both reach TLS).
 *
 * Conversions: %d %i %u %x %X %p %s %c %%, with the length modifiers l, ll, z and h,
 * the flags '-' (left-justify) and '0' (zero-pad), a width (digits or '*'), and a
 * precision for %s (".N" or ".*"). %p prints 0x followed by lowercase hex. A NULL %s
 * prints "(null)". Anything else is copied literally, so a bad format never crashes. */
#ifndef RT_FORMAT_H
#define RT_FORMAT_H

#include <stdarg.h>
#include <stddef.h>

/* Like snprintf: writes at most cap bytes including the terminating NUL (when cap > 0) and
 * returns the length the full output would have. */
size_t rt_format(char *buf, size_t cap, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
size_t rt_vformat(char *buf, size_t cap, const char *fmt, va_list ap);

/* Formats straight to a file descriptor, in as many write calls as needed.
 * Returns the number of bytes written, or -errno from the first failed write. */
long rt_dprintf(int fd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
long rt_vdprintf(int fd, const char *fmt, va_list ap);

#endif

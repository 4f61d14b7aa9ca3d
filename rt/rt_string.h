/* String helpers for app-thread code: what glibc offers only with errno or locale
 * (strtoul and friends), and bounded copies. */
#ifndef RT_STRING_H
#define RT_STRING_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Parses all of s as an unsigned integer: decimal, or hex with a 0x/0X prefix.
 * False on an empty string, a stray character or overflow; *out is then untouched. */
bool rt_parse_u64(const char *s, uint64_t *out);

/* Parses all of s as hex digits (no prefix required, "0x" accepted). */
bool rt_parse_hex_u64(const char *s, uint64_t *out);

/* Copies at most cap-1 bytes and always terminates (when cap > 0).
 * Returns strlen(src), so truncation shows as a result >= cap. */
size_t rt_strlcpy(char *dst, const char *src, size_t cap);

bool rt_starts_with(const char *s, const char *prefix);
bool rt_ends_with(const char *s, const char *suffix);
/* The length of a file's path as /proc names it, without the " (deleted)" the kernel adds
 * once the file is unlinked (links made before and after name one file). */
size_t rt_file_path_length(const char *path);

/* A signal's name as the kernel's headers spell it ("SIGSEGV"; real-time ones "SIGRT<n>",
 * n counted from 32), written into buf when it is not a constant. */
const char *rt_signal_name(int sig, char buf[16]);
/* The number of a name rt_signal_name gives (1 to 64); 0 for any other string. */
int rt_signal_number(const char *name);

#endif

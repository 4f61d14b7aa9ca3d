/* The names XED gives ISA extensions and instruction categories: the vocabulary of the
 * isa-extension and isa-category alarms. Plain static data, usable from any thread. */
#ifndef XED_NAMES_H
#define XED_NAMES_H

#include <stddef.h>

/* NULL-terminated, in XED's spelling (e.g. "AVX512EVEX", "SSE4a", "COND_BR"). */
extern const char *const xed_extension_names[];
extern const char *const xed_category_names[];

/* The canonical spelling of the `len` bytes at `s`, matched ignoring case; NULL if unknown. */
const char *xed_extension_find(const char *s, size_t len);
const char *xed_category_find(const char *s, size_t len);

#endif

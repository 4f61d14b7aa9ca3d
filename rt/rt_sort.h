/* Sorting without libc (qsort may allocate): an in-place heap sort, O(n log n), not
 * stable. For reports and bookkeeping on app threads. */
#ifndef RT_SORT_H
#define RT_SORT_H

#include <stddef.h>

/* cmp returns <0, 0 or >0 as a sorts before, with or after b. */
typedef int (*rt_compare_fn)(const void *a, const void *b);

void rt_sort(void *base, size_t n, size_t size, rt_compare_fn cmp);

#endif

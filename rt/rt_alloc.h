/* A thread-safe allocator backed by mmap, for code that runs on app threads (where
 * glibc's malloc, with its per-thread arenas in TLS, must not be called).
 *
 * Every block is 16-byte aligned. Blocks of up to 16 KiB come from per-size-class free
 * lists under a futex lock per class (freed ones are kept for reuse); larger blocks are
 * mappings of their own and are unmapped on free.
 * Returns NULL when the kernel refuses memory; never aborts. */
#ifndef RT_ALLOC_H
#define RT_ALLOC_H

#include <stddef.h>

void *rt_alloc(size_t size);
void *rt_calloc(size_t count, size_t size);
void *rt_realloc(void *block, size_t size);
void rt_free(void *block);
char *rt_strdup(const char *s);

/* Bytes the caller may use in a block returned by the functions above. */
size_t rt_alloc_usable_size(const void *block);

/* A page (4 KiB, page-aligned) of its own, for rt_free_page only. A block of rt_alloc's
 * carries a header: a page's worth of data would take two pages of an 8 KiB block. */
void *rt_alloc_page(void);
void rt_free_page(void *page);

#endif

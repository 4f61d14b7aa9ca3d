/* The app's memory map as the runtime knows it: every mapping the app owns (its images,
 * stack, break, and what it mapped itself), never the runtime's own memory. Kept up to
 * date by the memory syscalls; read by the logger to snapshot the app. */
#ifndef JIT_APP_MAP_H
#define JIT_APP_MAP_H

#include <stdint.h>

struct app_mapping {
	uint64_t start, end; /* page-aligned */
	uint32_t prot;	     /* as the app asked (PROT_EXEC kept in checking mode) */
	uint32_t flags;	     /* MAP_* as given */
	uint64_t offset;     /* file offset of start */
	const char *path;    /* file, "[stack]", "[heap]", or NULL (anonymous); static or owned */
};

/* Replaces whatever overlapped [start, end). path is copied. */
void app_map_add(uint64_t start, uint64_t end, uint32_t prot, uint32_t flags, uint64_t offset,
		 const char *path);
void app_map_remove(uint64_t start, uint64_t end);
void app_map_protect(uint64_t start, uint64_t end, uint32_t prot);
/* mremap: [old, old+old_len) moves to new_start with new_len. */
void app_map_move(uint64_t old_start, uint64_t old_len, uint64_t new_start, uint64_t new_len);

/* Calls fn for each mapping in address order; stops early when fn returns nonzero. */
int app_map_foreach(int (*fn)(const struct app_mapping *m, void *arg), void *arg);

#endif

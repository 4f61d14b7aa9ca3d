/* The app's memory map as the runtime knows it: every mapping the app owns (its images,
 * stack, break, and what it mapped itself), never the runtime's own memory. Kept up to
 * date by the memory syscalls; walked by clients through jit_app.h. */
#ifndef JIT_APP_MAP_H
#define JIT_APP_MAP_H

#include <stdbool.h>
#include <stdint.h>

#include "jit_app.h"

/* Replaces whatever overlapped [start, end). path is copied. */
void app_map_add(uint64_t start, uint64_t end, uint32_t prot, uint32_t flags, uint64_t offset,
		 const char *path);
void app_map_remove(uint64_t start, uint64_t end);
void app_map_protect(uint64_t start, uint64_t end, uint32_t prot);
/* The app starts in mappings it did not make (a replay's): its executable file mappings go
 * to the clients (image_mapped), as later adopted ones will. */
void app_map_announce_images(void);
/* mremap: [old, old+old_len) moves to new_start with new_len. */
/* Whether [start, start + len) lies in one private mapping the app may read but not write
 * (constant_slot.h's constant_range). */
bool app_map_constant(uint64_t start, uint64_t len);
/* The protection of the mapping that holds addr; false when none does. */
bool app_map_prot_of(uint64_t addr, uint32_t *prot);
void app_map_move(uint64_t old_start, uint64_t old_len, uint64_t new_start, uint64_t new_len);

#endif

/* Executable memory for translated code, in arenas placed near the app code they hold so
 * that RIP-relative operands and direct branches keep their rel32 form.
 *
 * Single writer for now: callers hold the translation lock (threads come later). */
#ifndef JIT_CODE_CACHE_H
#define JIT_CODE_CACHE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Room for at most `size` bytes of code, as close to app_pc as the address space allows.
 * Returns NULL when no memory can be had. Follow with code_cache_commit. */
uint8_t *code_cache_reserve(uint64_t app_pc, size_t size);

/* Keeps the first `used` bytes of the last reservation. */
void code_cache_commit(uint8_t *start, size_t used);

/* Forgets every translation (the memory is reused, not unmapped). */
void code_cache_reset(void);

/* True when addr lies in any arena (used to tell app faults in the cache apart). */
int code_cache_contains(uint64_t addr);

size_t code_cache_bytes_used(void);

/* Segments: a forked child's translations go into arenas apart from its parent's (segment
 * 0: the process that started the program), so that each can be kept in a file of its own
 * (persist.h) without the two overlapping. New code goes into the current segment's. */
void code_cache_set_segment(unsigned segment);

/* An arena of `segment` at `base` whose first `used` bytes the caller fills at once (kept
 * code: persist.h). NULL when that range is taken, or no arena is left. */
uint8_t *code_cache_adopt(uint64_t base, size_t used, unsigned segment);

/* The used parts of the segment's arenas, in creation order. */
struct code_cache_span {
	uint8_t *base;
	size_t used;
};
size_t code_cache_spans(struct code_cache_span *out, size_t max, unsigned segment);

/* The bytes the segment's arenas hold, used or not any more. */
size_t code_cache_segment_bytes(unsigned segment);

/* Whether addr lies in an arena of the segment. */
bool code_cache_in_segment(uint64_t addr, unsigned segment);

/* The most bytes an arena holds. */
size_t code_cache_arena_size(void);

#endif

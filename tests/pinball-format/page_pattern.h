/* Page contents for tests and benchmarks: non-zero, different for every page, and
 * compressible (like real program data) without costing much to generate. */
#ifndef PAGE_PATTERN_H
#define PAGE_PATTERN_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* Fills `size` bytes (a multiple of 256) for page number n: a 256-byte block of small
 * pseudo-random words seeded by n, repeated with the page number stamped in each copy. */
static inline void page_pattern(uint8_t *page, size_t size, uint64_t n)
{
	uint64_t x = n * 0x9e3779b97f4a7c15u + 1;
	uint64_t block[32];
	for (int i = 0; i < 32; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		block[i] = x & 0x000000ff00ff00ffu;
	}
	for (size_t off = 0; off < size; off += sizeof block) {
		block[0] = n + off;
		memcpy(page + off, block, sizeof block);
	}
}

#endif

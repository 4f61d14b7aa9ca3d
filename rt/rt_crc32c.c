/* CRC-32C with the SSE4.2 crc32 instruction when the CPU has it, bit by bit otherwise. */
#include "rt_crc32c.h"

#include <cpuid.h>
#include <string.h>

#define CRC32C_POLY_REFLECTED 0x82f63b78u

static uint32_t crc32c_soft(uint32_t crc, const uint8_t *p, size_t len)
{
	while (len--) {
		crc ^= *p++;
		for (int bit = 0; bit < 8; bit++)
			crc = (crc >> 1) ^ (CRC32C_POLY_REFLECTED & -(crc & 1));
	}
	return crc;
}

__attribute__((target("sse4.2"))) static uint32_t crc32c_hw(uint32_t crc, const uint8_t *p,
							    size_t len)
{
	uint64_t c = crc;
	for (; len >= 8; len -= 8, p += 8) {
		uint64_t word;
		memcpy(&word, p, 8);
		c = __builtin_ia32_crc32di(c, word);
	}
	uint32_t c32 = (uint32_t)c;
	for (; len; len--)
		c32 = __builtin_ia32_crc32qi(c32, *p++);
	return c32;
}

static int have_sse42(void)
{
	static int cached; /* 0 unknown, 1 no, 2 yes; every thread computes the same value */
	int v = __atomic_load_n(&cached, __ATOMIC_RELAXED);
	if (!v) {
		unsigned a, b, c, d;
		v = (__get_cpuid(1, &a, &b, &c, &d) && (c & bit_SSE4_2)) ? 2 : 1;
		__atomic_store_n(&cached, v, __ATOMIC_RELAXED);
	}
	return v == 2;
}

uint32_t rt_crc32c(uint32_t crc, const void *data, size_t len)
{
	crc = ~crc;
	crc = have_sse42() ? crc32c_hw(crc, data, len) : crc32c_soft(crc, data, len);
	return ~crc;
}

/* CRC-32C with the SSE4.2 crc32 instruction when the CPU has it (three streams at a time
 * with PCLMULQDQ to join them), bit by bit otherwise. */
#include "rt_crc32c.h"

#include <cpuid.h>
#include <string.h>
#include <wmmintrin.h>

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

/* The crc32 instruction takes 3 cycles and can start every cycle: three streams over three
 * stripes of a block run three times as fast as one (a kept translations file of 700 KiB,
 * checked at every start of its program, took 0.15 ms in one stream). */
enum { STRIPE = 1024 };

/* States are polynomials over GF(2) modulo the CRC's, bit i standing for x^(31-i) (the
 * reflected order). A carry-less product of two states is their product times x, as a
 * 64-bit word; the crc32 instruction on a word from state 0 multiplies it by x^32. So
 * advancing a state over n zero bytes (times x^(8n)) is a product with x^(8n-33): this,
 * made from x^31 (1) by n/8 - 1 steps of a zero word, each times x^64. n: a multiple of 8. */
__attribute__((target("sse4.2"))) static uint64_t zeros_factor(size_t n)
{
	uint64_t v = 1;
	for (size_t i = 8; i < n; i += 8)
		v = __builtin_ia32_crc32di(v, 0);
	return v;
}

__attribute__((target("sse4.2,pclmul"))) static uint64_t advance(uint64_t state, uint64_t factor)
{
	__m128i product = _mm_clmulepi64_si128(_mm_cvtsi64_si128((long long)state),
					       _mm_cvtsi64_si128((long long)factor), 0);
	return __builtin_ia32_crc32di(0, (uint64_t)_mm_cvtsi128_si64(product));
}

/* Whole blocks of three stripes, each stripe its own stream; the streams joined by
 * advancing the first two over what follows them. */
__attribute__((target("sse4.2,pclmul"))) static uint64_t crc_blocks(uint64_t c, const uint8_t *p,
								    size_t blocks)
{
	/* (never 0; every thread computes the same values: a race writes what was there) */
	static uint64_t over_one, over_two;
	uint64_t one = __atomic_load_n(&over_one, __ATOMIC_RELAXED);
	uint64_t two = __atomic_load_n(&over_two, __ATOMIC_RELAXED);
	if (!one || !two) {
		one = zeros_factor(STRIPE);
		two = zeros_factor(2 * STRIPE);
		__atomic_store_n(&over_one, one, __ATOMIC_RELAXED);
		__atomic_store_n(&over_two, two, __ATOMIC_RELAXED);
	}
	for (size_t b = 0; b < blocks; b++, p += 3 * STRIPE) {
		uint64_t c0 = c, c1 = 0, c2 = 0;
		for (size_t i = 0; i < STRIPE; i += 8) {
			uint64_t w0, w1, w2;
			memcpy(&w0, p + i, 8);
			memcpy(&w1, p + STRIPE + i, 8);
			memcpy(&w2, p + 2 * STRIPE + i, 8);
			c0 = __builtin_ia32_crc32di(c0, w0);
			c1 = __builtin_ia32_crc32di(c1, w1);
			c2 = __builtin_ia32_crc32di(c2, w2);
		}
		c = advance(c0, two) ^ advance(c1, one) ^ c2;
	}
	return c;
}

__attribute__((target("sse4.2"))) static uint32_t crc_tail(uint32_t crc, const uint8_t *p,
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

enum { CPU_UNKNOWN, CPU_SOFT, CPU_CRC32, CPU_CRC32_CLMUL };

static int cpu_kind(void)
{
	static int cached; /* every thread computes the same value */
	int v = __atomic_load_n(&cached, __ATOMIC_RELAXED);
	if (v == CPU_UNKNOWN) {
		unsigned a, b, c, d;
		if (!__get_cpuid(1, &a, &b, &c, &d) || !(c & bit_SSE4_2))
			v = CPU_SOFT;
		else
			v = c & bit_PCLMUL ? CPU_CRC32_CLMUL : CPU_CRC32;
		__atomic_store_n(&cached, v, __ATOMIC_RELAXED);
	}
	return v;
}

uint32_t rt_crc32c(uint32_t crc, const void *data, size_t len)
{
	const uint8_t *p = data;
	crc = ~crc;
	switch (cpu_kind()) {
	case CPU_CRC32_CLMUL: {
		size_t blocks = len / (3 * STRIPE);
		if (blocks)
			crc = (uint32_t)crc_blocks(crc, p, blocks);
		p += blocks * 3 * STRIPE;
		len -= blocks * 3 * STRIPE;
	}
		/* fall through */
	case CPU_CRC32:
		crc = crc_tail(crc, p, len);
		break;
	default:
		crc = crc32c_soft(crc, p, len);
	}
	return ~crc;
}

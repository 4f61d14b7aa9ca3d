#include <check.h>
#include <stdint.h>
#include <stdlib.h>

#include "rt_crc32c.h"
#include "unit_suites.h"

/* The definition, one bit at a time (reflected CRC-32C, inverted in and out). */
static uint32_t crc_by_bits(uint32_t crc, const uint8_t *p, size_t len)
{
	crc = ~crc;
	while (len--) {
		crc ^= *p++;
		for (int bit = 0; bit < 8; bit++)
			crc = (crc >> 1) ^ (0x82f63b78u & -(crc & 1));
	}
	return ~crc;
}

START_TEST(check_value)
{
	ck_assert_uint_eq(rt_crc32c(0, "123456789", 9), 0xe3069283u);
}
END_TEST

/* Lengths around the three-stripe blocks (3 KiB) and their multiples, at every alignment
 * of the start, and split anywhere: the blocks' joining of their streams must give the
 * same value as the bits. */
START_TEST(equals_the_definition)
{
	enum { MAX = 5 * 3072 + 64 };
	static uint8_t buf[MAX + 8];
	srand(11);
	for (size_t i = 0; i < sizeof buf; i++)
		buf[i] = (uint8_t)rand();
	static const size_t lengths[] = {0,    1,    7,	   8,	 63,   1024, 3071,
					 3072, 3073, 3079, 6144, 9215, 9216, MAX};
	for (size_t l = 0; l < sizeof lengths / sizeof lengths[0]; l++)
		for (size_t start = 0; start < 8; start++) {
			size_t len = lengths[l];
			uint32_t want = crc_by_bits(0, buf + start, len);
			ck_assert_uint_eq(rt_crc32c(0, buf + start, len), want);
			size_t split = len / 3 + start;
			if (split > len)
				continue;
			uint32_t head = rt_crc32c(0, buf + start, split);
			ck_assert_uint_eq(rt_crc32c(head, buf + start + split, len - split), want);
		}
}
END_TEST

START_TEST(continues_any_state)
{
	static uint8_t buf[4 * 3072];
	for (size_t i = 0; i < sizeof buf; i++)
		buf[i] = (uint8_t)(i * 7 + 3);
	for (uint32_t state = 1; state; state <<= 5)
		ck_assert_uint_eq(rt_crc32c(state, buf, sizeof buf),
				  crc_by_bits(state, buf, sizeof buf));
}
END_TEST

Suite *rt_crc32c_suite(void)
{
	Suite *s = suite_create("rt_crc32c");
	TCase *tc = tcase_create("core");
	tcase_add_test(tc, check_value);
	tcase_add_test(tc, equals_the_definition);
	tcase_add_test(tc, continues_any_state);
	suite_add_tcase(s, tc);
	return s;
}

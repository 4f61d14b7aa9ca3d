#include <check.h>
#include <pthread.h>
#include <stdint.h>
#include <string.h>

#include "rt_alloc.h"
#include "unit_suites.h"

START_TEST(blocks_are_aligned_usable_and_distinct)
{
	static const size_t sizes[] = {0, 1, 15, 16, 17, 100, 1000, 4080, 4081, 5000, 1 << 20};
	void *blocks[sizeof sizes / sizeof sizes[0]];
	for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
		blocks[i] = rt_alloc(sizes[i]);
		ck_assert_ptr_nonnull(blocks[i]);
		ck_assert_uint_eq((uintptr_t)blocks[i] % 16, 0);
		ck_assert_uint_ge(rt_alloc_usable_size(blocks[i]), sizes[i]);
		memset(blocks[i], (int)i, sizes[i]);
	}
	for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
		for (size_t b = 0; b < sizes[i]; b++)
			ck_assert_int_eq(((unsigned char *)blocks[i])[b], (unsigned char)i);
		rt_free(blocks[i]);
	}
}
END_TEST

START_TEST(freed_small_blocks_are_reused)
{
	void *a = rt_alloc(40);
	rt_free(a);
	void *b = rt_alloc(40);
	ck_assert_ptr_eq(a, b);
	rt_free(b);
}
END_TEST

/* A recorded page's record (4 KiB of data and a header) is reused, not mapped anew. */
START_TEST(freed_page_sized_blocks_are_reused)
{
	void *a = rt_alloc(4096 + 256);
	rt_free(a);
	void *b = rt_alloc(4096 + 256);
	ck_assert_ptr_eq(a, b);
	rt_free(b);
}
END_TEST

START_TEST(calloc_zeroes_and_checks_overflow)
{
	unsigned char *p = rt_alloc(64);
	memset(p, 0xff, 64);
	rt_free(p);
	unsigned char *q = rt_calloc(8, 8); /* likely the block just dirtied */
	for (int i = 0; i < 64; i++)
		ck_assert_int_eq(q[i], 0);
	rt_free(q);
	ck_assert_ptr_null(rt_calloc(SIZE_MAX / 2, 4));
	ck_assert_ptr_null(rt_alloc(SIZE_MAX - 8));
}
END_TEST

START_TEST(realloc_keeps_contents)
{
	char *p = rt_realloc(NULL, 10);
	memcpy(p, "123456789", 10);
	p = rt_realloc(p, 10000);
	ck_assert_str_eq(p, "123456789");
	p = rt_realloc(p, 5); /* shrinking keeps the block */
	ck_assert_str_eq(p, "123456789");
	rt_free(p);
	char *d = rt_strdup("dup me");
	ck_assert_str_eq(d, "dup me");
	rt_free(d);
	rt_free(NULL);
}
END_TEST

enum { THREADS = 8, ROUNDS = 20000, LIVE = 64 };

/* Each thread keeps LIVE blocks stamped with its id and checks the stamps before freeing:
 * a block handed to two threads at once would show another thread's stamp. */
static void *churn(void *arg)
{
	uintptr_t id = (uintptr_t)arg;
	unsigned char *live[LIVE] = {0};
	size_t len[LIVE] = {0};
	unsigned seed = (unsigned)id * 2654435761u;
	for (int r = 0; r < ROUNDS; r++) {
		seed = seed * 1103515245u + 12345u;
		int slot = (int)(seed >> 16) % LIVE;
		if (live[slot]) {
			for (size_t b = 0; b < len[slot]; b++)
				if (live[slot][b] != (unsigned char)id)
					return (void *)1;
			rt_free(live[slot]);
		}
		len[slot] = 1 + (seed >> 8) % 3000;
		live[slot] = rt_alloc(len[slot]);
		if (!live[slot])
			return (void *)1;
		memset(live[slot], (int)id, len[slot]);
	}
	for (int s = 0; s < LIVE; s++)
		rt_free(live[s]);
	return NULL;
}

START_TEST(concurrent_threads_never_share_a_block)
{
	pthread_t t[THREADS];
	for (uintptr_t i = 0; i < THREADS; i++)
		ck_assert_int_eq(pthread_create(&t[i], NULL, churn, (void *)(i + 1)), 0);
	for (int i = 0; i < THREADS; i++) {
		void *result;
		pthread_join(t[i], &result);
		ck_assert_ptr_null(result);
	}
}
END_TEST

Suite *rt_alloc_suite(void)
{
	Suite *s = suite_create("rt_alloc");
	TCase *tc = tcase_create("core");
	tcase_add_test(tc, blocks_are_aligned_usable_and_distinct);
	tcase_add_test(tc, freed_small_blocks_are_reused);
	tcase_add_test(tc, freed_page_sized_blocks_are_reused);
	tcase_add_test(tc, calloc_zeroes_and_checks_overflow);
	tcase_add_test(tc, realloc_keeps_contents);
	tcase_add_test(tc, concurrent_threads_never_share_a_block);
	tcase_set_timeout(tc, 60);
	suite_add_tcase(s, tc);
	return s;
}

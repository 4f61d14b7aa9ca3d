#include <check.h>
#include <stdint.h>
#include <stdlib.h>

#include "rt_sort.h"
#include "unit_suites.h"

static int by_value(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

START_TEST(sorts_like_qsort)
{
	enum { N = 5000 };
	static uint64_t mine[N], theirs[N];
	srand(7);
	for (size_t n = 0; n <= N; n = n ? n * 3 : 1) {
		for (size_t i = 0; i < n; i++)
			mine[i] = theirs[i] = (uint64_t)(rand() % 100); /* many duplicates */
		rt_sort(mine, n, sizeof mine[0], by_value);
		qsort(theirs, n, sizeof theirs[0], by_value);
		for (size_t i = 0; i < n; i++)
			ck_assert_uint_eq(mine[i], theirs[i]);
	}
}
END_TEST

struct wide {
	char name[13];
	int key;
};

static int by_key_descending(const void *a, const void *b)
{
	return ((const struct wide *)b)->key - ((const struct wide *)a)->key;
}

START_TEST(sorts_odd_sized_elements)
{
	struct wide v[] = {{"b", 2}, {"e", 5}, {"a", 1}, {"d", 4}, {"c", 3}};
	rt_sort(v, 5, sizeof v[0], by_key_descending);
	ck_assert_str_eq(v[0].name, "e");
	ck_assert_str_eq(v[2].name, "c");
	ck_assert_str_eq(v[4].name, "a");
}
END_TEST

Suite *rt_sort_suite(void)
{
	Suite *s = suite_create("rt_sort");
	TCase *tc = tcase_create("core");
	tcase_add_test(tc, sorts_like_qsort);
	tcase_add_test(tc, sorts_odd_sized_elements);
	suite_add_tcase(s, tc);
	return s;
}

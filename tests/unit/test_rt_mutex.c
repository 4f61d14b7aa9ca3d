#include <check.h>
#include <pthread.h>

#include "rt_mutex.h"
#include "unit_suites.h"

enum { THREADS = 4, INCREMENTS = 200000 };

static rt_mutex counter_lock = RT_MUTEX_INIT;
static long counter;

/* A non-atomic read-modify-write: loses updates unless the mutex excludes. */
static void *bump(void *arg)
{
	(void)arg;
	for (int i = 0; i < INCREMENTS; i++) {
		rt_mutex_lock(&counter_lock);
		long v = counter;
		__asm__ volatile("" ::: "memory");
		counter = v + 1;
		rt_mutex_unlock(&counter_lock);
	}
	return NULL;
}

START_TEST(mutex_excludes_under_contention)
{
	pthread_t t[THREADS];
	counter = 0;
	for (int i = 0; i < THREADS; i++)
		ck_assert_int_eq(pthread_create(&t[i], NULL, bump, NULL), 0);
	for (int i = 0; i < THREADS; i++)
		pthread_join(t[i], NULL);
	ck_assert_int_eq(counter, (long)THREADS * INCREMENTS);
	ck_assert_int_eq(counter_lock.state, 0);
}
END_TEST

START_TEST(trylock_fails_when_held)
{
	rt_mutex m = RT_MUTEX_INIT;
	ck_assert(rt_mutex_trylock(&m));
	ck_assert(!rt_mutex_trylock(&m));
	rt_mutex_unlock(&m);
	ck_assert(rt_mutex_trylock(&m));
	rt_mutex_unlock(&m);
}
END_TEST

Suite *rt_mutex_suite(void)
{
	Suite *s = suite_create("rt_mutex");
	TCase *tc = tcase_create("core");
	tcase_add_test(tc, mutex_excludes_under_contention);
	tcase_add_test(tc, trylock_fails_when_held);
	tcase_set_timeout(tc, 60);
	suite_add_tcase(s, tc);
	return s;
}

#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "rt_syscall.h"
#include "unit_suites.h"

START_TEST(errors_come_back_as_negative_errno)
{
	errno = 0;
	ck_assert_int_eq(rt_openat(AT_FDCWD, "/nonexistent/file", O_RDONLY, 0), -ENOENT);
	ck_assert_int_eq(rt_close(-1), -EBADF);
	ck_assert_int_eq(errno, 0); /* the whole point: glibc's errno untouched */
	ck_assert(rt_is_error(-EBADF));
	ck_assert(!rt_is_error(0x7f0000000000));
}
END_TEST

START_TEST(read_write_mmap_round_trip)
{
	int fds[2];
	ck_assert_int_eq(pipe(fds), 0);
	ck_assert_int_eq(rt_write_all(fds[1], "hello", 5), 5);
	char buf[8] = {0};
	ck_assert_int_eq(rt_read(fds[0], buf, sizeof buf), 5);
	ck_assert_str_eq(buf, "hello");
	rt_close(fds[0]);
	rt_close(fds[1]);

	long addr = rt_mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ck_assert(!rt_is_error(addr));
	memset((void *)addr, 1, 4096);
	ck_assert_int_eq(rt_munmap((void *)addr, 4096), 0);
	ck_assert_int_eq(rt_getpid(), getpid());
	ck_assert_int_eq(rt_gettid(), gettid());
}
END_TEST

/* A mapping where the runtime's zone would go next (as the replayer maps the recorded
 * program break): later allocations still land in the zone, past it, not at the kernel's
 * choice near the app's mappings. */
START_TEST(zone_allocations_pass_a_mapping_in_their_way)
{
	long probe =
	    rt_mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ck_assert(!rt_is_error(probe));
	rt_munmap((void *)probe, 4096);
	uint64_t obstacle = (uint64_t)probe + 4096; /* where the next one would go */
	size_t big = 64 << 20;
	long in_the_way =
	    rt_mmap((void *)obstacle, big, PROT_NONE,
		    MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED_NOREPLACE, -1, 0);
	ck_assert_uint_eq((uint64_t)in_the_way, obstacle);
	long p = rt_mmap(NULL, 65536, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ck_assert(!rt_is_error(p));
	ck_assert_uint_ge((uint64_t)p, obstacle + big);
	ck_assert_uint_lt((uint64_t)p, 0x400000000000ull); /* the zone's end */
	rt_munmap((void *)p, 65536);
	rt_munmap((void *)in_the_way, big);
}
END_TEST

START_TEST(futex_wake_with_no_waiter_returns_zero)
{
	int word = 0;
	ck_assert_int_eq(rt_futex_wake(&word, 1), 0);
	ck_assert_int_eq(rt_futex_wait(&word, 1), -EAGAIN); /* value differs: no sleep */
}
END_TEST

Suite *rt_syscall_suite(void)
{
	Suite *s = suite_create("rt_syscall");
	TCase *tc = tcase_create("core");
	tcase_add_test(tc, errors_come_back_as_negative_errno);
	tcase_add_test(tc, read_write_mmap_round_trip);
	tcase_add_test(tc, zone_allocations_pass_a_mapping_in_their_way);
	tcase_add_test(tc, futex_wake_with_no_waiter_returns_zero);
	suite_add_tcase(s, tc);
	return s;
}

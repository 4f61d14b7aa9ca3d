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
	tcase_add_test(tc, futex_wake_with_no_waiter_returns_zero);
	suite_add_tcase(s, tc);
	return s;
}

#include "rt_syscall.h"

#include <errno.h>
#include <linux/futex.h>

long rt_futex_wait(int *word, int expected)
{
	return rt_syscall4(SYS_futex, (long)word, FUTEX_WAIT_PRIVATE, expected, 0);
}

long rt_futex_wait_ms(int *word, int expected, unsigned ms)
{
	struct {
		long sec, nsec;
	} relative = {ms / 1000, (long)(ms % 1000) * 1000000};
	return rt_syscall4(SYS_futex, (long)word, FUTEX_WAIT_PRIVATE, expected, (long)&relative);
}

long rt_futex_wake(int *word, int count)
{
	return rt_syscall3(SYS_futex, (long)word, FUTEX_WAKE_PRIVATE, count);
}

long rt_write_all(int fd, const void *buf, size_t len)
{
	const char *p = buf;
	size_t done = 0;
	while (done < len) {
		long n = rt_write(fd, p + done, len - done);
		if (n == -EINTR)
			continue;
		if (n < 0)
			return n;
		if (n == 0)
			return -EIO;
		done += (size_t)n;
	}
	return (long)len;
}

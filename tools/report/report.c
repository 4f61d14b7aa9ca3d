#include "report.h"

#include <fcntl.h>

#include "fatal.h"
#include "rt_syscall.h"

int report_open(const char *path)
{
	if (!path)
		return messages_fd();
	long r = rt_openat(AT_FDCWD, path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (r < 0) {
		message("error: cannot write %s (errno %ld)", path, -r);
		return -1;
	}
	return (int)r;
}

void report_close(int fd, const char *path)
{
	if (path)
		rt_close(fd);
}

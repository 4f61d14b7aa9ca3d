#include "report.h"

#include <fcntl.h>

#include "jit_messages.h"
#include "rt_syscall.h"

void report_write(const char *path, void (*write_report)(int fd))
{
	if (!path) {
		write_report(jit_messages_fd());
		return;
	}
	long r = rt_openat(AT_FDCWD, path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (r < 0) {
		jit_message("error: cannot write %s (errno %ld)", path, -r);
		return;
	}
	write_report((int)r);
	rt_close((int)r);
}

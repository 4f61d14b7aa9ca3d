#include "run_failure.h"

#include <fcntl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "rt_format.h"
#include "rt_syscall.h"

static bool root, failed;
static const char *const *session_dir;

void run_failure_init(bool is_root, const char *const *dir)
{
	root = is_root;
	session_dir = dir;
}

/* The file that says some process of the run lost a pinball; false when there is no
 * session directory. */
static bool mark_path(char *path, size_t size)
{
	if (!session_dir || !*session_dir)
		return false;
	rt_format(path, size, "%s/pinball-failed", *session_dir);
	return true;
}

void run_failure_note(void)
{
	failed = true;
	char path[4096];
	if (root || !mark_path(path, sizeof path))
		return;
	long fd = rt_openat(AT_FDCWD, path, O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
	if (fd >= 0)
		rt_close((int)fd);
}

bool run_failure_seen(void)
{
	char path[4096];
	return root && (failed || (mark_path(path, sizeof path) &&
				   rt_syscall2(SYS_access, (long)path, F_OK) == 0));
}

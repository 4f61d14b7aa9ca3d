#include "proc_self.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/memfd.h>
#include <string.h>

#include "app_copy.h"
#include "config.h"
#include "jit_app.h"
#include "proc_maps.h"
#include "rt_format.h"
#include "rt_string.h"
#include "rt_syscall.h"

/* Matches "/proc/self/<leaf>", "/proc/thread-self/<leaf>" and "/proc/<our pid>/<leaf>"; a
 * path the app's pointer does not reach is none of them (the kernel's EFAULT follows). */
static bool names_own_proc_entry(int dirfd, const char *app_path, const char *leaf)
{
	char path[64];
	if (!app_copy_string(path, (uint64_t)app_path, sizeof path) ||
	    (path[0] != '/' && dirfd != AT_FDCWD))
		return false;
	char mine[64];
	const char *forms[] = {"/proc/self/%s", "/proc/thread-self/%s", NULL};
	for (int i = 0; forms[i]; i++) {
		rt_format(mine, sizeof mine, forms[i], leaf);
		if (strcmp(path, mine) == 0)
			return true;
	}
	rt_format(mine, sizeof mine, "/proc/%d/%s", (int)rt_getpid(), leaf);
	return strcmp(path, mine) == 0;
}

bool proc_self_readlink(int dirfd, const char *path, char *buf, long size, long *result)
{
	if (!names_own_proc_entry(dirfd, path, "exe"))
		return false;
	if (size <= 0) {
		*result = -EINVAL;
		return true;
	}
	size_t n = strlen(jit_config.app_exe_path);
	if (n > (size_t)size)
		n = (size_t)size;
	*result = app_copy_out((uint64_t)buf, jit_config.app_exe_path, n) ? (long)n : -EFAULT;
	return true;
}

const char *proc_self_exec_path(const char *path)
{
	return names_own_proc_entry(AT_FDCWD, path, "exe") ? jit_config.app_exe_path : path;
}

long proc_self_memory_file(const char *name, const void *data, size_t len, int flags)
{
	long fd = rt_syscall2(SYS_memfd_create, (long)name, (flags & O_CLOEXEC) ? MFD_CLOEXEC : 0);
	if (fd < 0)
		return fd;
	long w = rt_write_all((int)fd, data, len);
	if (w < 0) {
		rt_close((int)fd);
		return w;
	}
	rt_syscall3(SYS_lseek, fd, 0, 0 /* SEEK_SET */);
	return fd;
}

bool proc_self_open(int dirfd, const char *path, int flags, int mode, long *result)
{
	if (names_own_proc_entry(dirfd, path, "cmdline")) {
		*result = proc_self_memory_file("cmdline", jit_config.app_cmdline,
						jit_config.app_cmdline_len, flags);
		return true;
	}
	if (names_own_proc_entry(dirfd, path, "auxv")) {
		*result = proc_self_memory_file("auxv", jit_config.app_auxv,
						jit_config.app_auxv_len, flags);
		return true;
	}
	static const char *const maps[] = {"maps", "smaps"};
	for (size_t i = 0; i < sizeof maps / sizeof maps[0]; i++) {
		if ((flags & O_ACCMODE) != O_RDONLY || !names_own_proc_entry(dirfd, path, maps[i]))
			continue;
		*result = proc_maps_open(maps[i], flags);
		return true;
	}
	if (names_own_proc_entry(dirfd, path, "exe")) {
		*result = rt_openat(AT_FDCWD, jit_config.app_exe_path, flags, mode);
		return true;
	}
	return false;
}

const char *jit_app_exe_path(void)
{
	return jit_config.app_exe_path;
}

void jit_app_set_exe_path(const char *path)
{
	jit_config.app_exe_path = path;
}

int proc_self_tracer(void)
{
	char text[1024];
	long fd = rt_openat(AT_FDCWD, "/proc/self/status", O_RDONLY | O_CLOEXEC, 0);
	if (fd < 0)
		return 0;
	long n = rt_read((int)fd, text, sizeof text - 1); /* TracerPid is among the first lines */
	rt_close((int)fd);
	if (n <= 0)
		return 0;
	text[n] = 0;
	static const char name[] = "\nTracerPid:";
	const char *field = text;
	while (*field && !rt_starts_with(field, name))
		field++;
	if (!*field)
		return 0;
	int pid = 0;
	for (field += sizeof name - 1; *field == ' ' || *field == '\t'; field++)
		;
	for (; *field >= '0' && *field <= '9'; field++)
		pid = pid * 10 + (*field - '0');
	return pid;
}

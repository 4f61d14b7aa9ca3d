#include "persist_dir.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>

#include "rt_string.h"
#include "rt_syscall.h"

enum { DIRENT_RECLEN = 16, DIRENT_NAME = 19 }; /* offsets in a linux_dirent64 */

/* The pid written as the n digits at s (0: not digits, or no pid). */
static long pid_at(const char *s, size_t n)
{
	char digits[24];
	if (!n || n >= sizeof digits)
		return 0;
	memcpy(digits, s, n);
	digits[n] = '\0';
	uint64_t pid;
	return rt_parse_u64(digits, &pid) && pid > 0 && pid < (1u << 22) ? (long)pid : 0;
}

static size_t digits_before(const char *name, size_t end)
{
	size_t start = end;
	while (start > 0 && name[start - 1] >= '0' && name[start - 1] <= '9')
		start--;
	return end - start;
}

/* The writer's pid in a temporary file's name (NAME.jit.<pid>.tmp), 0 for another name. */
static long writer_of(const char *name)
{
	size_t len = strlen(name);
	if (len < 10 || !rt_ends_with(name, ".tmp"))
		return 0;
	size_t end = len - 4, n = digits_before(name, end), start = end - n;
	if (start < 5 || memcmp(name + start - 5, ".jit.", 5) != 0)
		return 0;
	return pid_at(name + start, n);
}

/* Whether name is one of the family's files ("<family>-<key>[.forked].jit") of a key
 * other than `key`. */
static bool stale(const char *name, uint64_t family, uint64_t key)
{
	char hex[17];
	uint64_t its_family, its_key;
	if (strlen(name) < 37 || name[16] != '-')
		return false;
	memcpy(hex, name, 16);
	hex[16] = '\0';
	if (!rt_parse_hex_u64(hex, &its_family) || its_family != family)
		return false;
	memcpy(hex, name + 17, 16);
	if (!rt_parse_hex_u64(hex, &its_key) || its_key == key)
		return false;
	return !strcmp(name + 33, ".jit") || !strcmp(name + 33, ".forked.jit");
}

/* Calls fn(dir_fd, name, arg) for each entry of the open directory but `.` and `..`. */
static void each_entry(long fd, void (*fn)(long fd, const char *name, void *arg), void *arg)
{
	char buf[4096];
	long got;
	while ((got = rt_syscall3(SYS_getdents64, fd, (long)buf, sizeof buf)) > 0) {
		for (long at = 0; at + DIRENT_NAME < got;) {
			uint16_t reclen;
			memcpy(&reclen, buf + at + DIRENT_RECLEN, sizeof reclen);
			if (!reclen || at + reclen > got)
				break;
			const char *name = buf + at + DIRENT_NAME;
			size_t room = reclen - DIRENT_NAME;
			at += reclen;
			if (memchr(name, '\0', room) && strcmp(name, ".") && strcmp(name, ".."))
				fn(fd, name, arg);
		}
	}
}

static void for_each_entry(const char *dir, void (*fn)(long fd, const char *name, void *arg),
			   void *arg)
{
	long fd = rt_openat(AT_FDCWD, dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC, 0);
	if (fd < 0)
		return;
	each_entry(fd, fn, arg);
	rt_close((int)fd);
}

struct sweep {
	uint64_t family, key;
};

static void sweep_entry(long fd, const char *name, void *arg)
{
	const struct sweep *s = arg;
	long pid = writer_of(name);
	/* (EPERM: someone else's process, alive) */
	if ((pid && rt_syscall2(SYS_kill, pid, 0) == -ESRCH) || stale(name, s->family, s->key))
		rt_syscall3(SYS_unlinkat, fd, (long)name, 0);
}

void persist_dir_sweep(const char *dir, uint64_t family, uint64_t key)
{
	struct sweep s = {family, key};
	for_each_entry(dir, sweep_entry, &s);
}

static void remove_entry(long fd, const char *name, void *arg)
{
	(void)arg;
	rt_syscall3(SYS_unlinkat, fd, (long)name, 0);
}

void persist_dir_remove(const char *dir)
{
	for_each_entry(dir, remove_entry, NULL);
	rt_syscall3(SYS_unlinkat, AT_FDCWD, (long)dir, AT_REMOVEDIR);
}

static void add_size(long fd, const char *name, void *arg)
{
	struct stat st;
	if (rt_syscall4(SYS_newfstatat, fd, (long)name, (long)&st, AT_SYMLINK_NOFOLLOW) == 0)
		*(uint64_t *)arg += (uint64_t)st.st_size;
}

uint64_t persist_dir_bytes(const char *dir)
{
	uint64_t bytes = 0;
	for_each_entry(dir, add_size, &bytes);
	return bytes;
}

long persist_session_owner(const char *dir)
{
	const char *name = strrchr(dir, '/');
	name = name ? name + 1 : dir;
	size_t prefix = strlen(PERSIST_SESSION_PREFIX);
	if (strncmp(name, PERSIST_SESSION_PREFIX, prefix))
		return 0;
	const char *dot = strchr(name + prefix, '.');
	size_t n = dot ? (size_t)(dot - name) : 0;
	return dot && digits_before(name, n) == n - prefix ? pid_at(name + prefix, n - prefix) : 0;
}

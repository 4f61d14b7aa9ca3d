#include "proc_fds.h"

#include <errno.h>
#include <stdbool.h>
#include <string.h>
#include <sys/syscall.h>

#include "app_copy.h"
#include "helper_tids.h"
#include "rt_alloc.h"
#include "rt_format.h"
#include "rt_string.h"
#include "rt_syscall.h"
#include "runtime_fds.h"

/* Whether `rest` is "fd" or "fdinfo". */
static bool is_fd_leaf(const char *rest)
{
	return !strcmp(rest, "fd") || !strcmp(rest, "fdinfo");
}

/* What directory descriptor fd lists, of this process's own (as the kernel names them,
 * whatever name the app opened them by: self, thread-self): its descriptors
 * (/proc/<pid>/fd(info), /proc/<pid>/task/<tid>/fd(info)), its threads (/proc/<pid>/task),
 * or neither. */
enum own_listing { NOT_OWN, OWN_FDS, OWN_TASKS };

static enum own_listing own_listing(long fd)
{
	char link[48], dir[64], own[32];
	rt_format(link, sizeof link, "/proc/self/fd/%ld", fd);
	long n = rt_syscall3(SYS_readlink, (long)link, (long)dir, sizeof dir - 1);
	if (n <= 0)
		return NOT_OWN;
	dir[n] = '\0';
	size_t len = (size_t)rt_format(own, sizeof own, "/proc/%ld/", rt_getpid());
	if (strncmp(dir, own, len))
		return NOT_OWN;
	const char *rest = dir + len;
	if (is_fd_leaf(rest))
		return OWN_FDS;
	if (!strcmp(rest, "task"))
		return OWN_TASKS;
	if (!rt_starts_with(rest, "task/"))
		return NOT_OWN;
	const char *tid = rest + 5, *end = tid;
	while (*end >= '0' && *end <= '9')
		end++;
	return end > tid && *end == '/' && is_fd_leaf(end + 1) ? OWN_FDS : NOT_OWN;
}

/* Whether a listing's entry names the runtime's: a descriptor, or a helper thread. */
static bool runtime_entry(enum own_listing what, uint64_t number)
{
	return what == OWN_FDS ? runtime_fds_owns((long)number) : helper_tids_has((long)number);
}

/* Drops from the len bytes of directory entries at buf (their names at name_off: 19 in a
 * linux_dirent64, 18 in a linux_dirent) those naming the runtime's; the new length. */
static size_t without_runtime_entries(char *buf, size_t len, size_t name_off, enum own_listing what)
{
	size_t out = 0;
	for (size_t at = 0; at + name_off < len;) {
		uint16_t reclen;
		memcpy(&reclen, buf + at + 16, sizeof reclen);
		if (!reclen || at + reclen > len)
			break;
		uint64_t number;
		const char *name = buf + at + name_off;
		bool hidden = memchr(name, '\0', reclen - name_off) &&
			      rt_parse_u64(name, &number) && runtime_entry(what, number);
		if (!hidden) {
			memmove(buf + out, buf + at, reclen);
			out += reclen;
		}
		at += reclen;
	}
	return out;
}

long proc_fds_getdents(long nr, const long a[6])
{
	long r = rt_syscall3(nr, a[0], a[1], a[2]);
	enum own_listing what = r > 0 ? own_listing(a[0]) : NOT_OWN;
	if (what == NOT_OWN || (what == OWN_TASKS && !helper_tids_live()))
		return r;
	char *buf = rt_alloc((size_t)a[2]);
	if (!buf)
		return r;
	size_t name_off = nr == SYS_getdents64 ? 19 : 18;
	/* A read that held only the runtime's entries is followed by the next, so that an
	 * empty answer still means the end. */
	while (app_copy_in(buf, (uint64_t)a[1], (size_t)r)) {
		size_t kept = without_runtime_entries(buf, (size_t)r, name_off, what);
		if (kept == (size_t)r)
			break;
		if (kept) {
			if (app_copy_out((uint64_t)a[1], buf, kept))
				r = (long)kept;
			break;
		}
		r = rt_syscall3(nr, a[0], a[1], a[2]);
		if (r <= 0)
			break;
	}
	rt_free(buf);
	return r;
}

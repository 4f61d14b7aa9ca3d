#include "proc_self.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/memfd.h>
#include <stdint.h>
#include <string.h>

#include "app_copy.h"
#include "config.h"
#include "helper_tids.h"
#include "jit_app.h"
#include "proc_maps.h"
#include "rt_alloc.h"
#include "rt_format.h"
#include "rt_string.h"
#include "rt_syscall.h"
#include "seccomp.h"
#include "signals.h"

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

bool proc_self_fd_path(const char *app_path, long *fd)
{
	char path[64];
	if (!app_copy_string(path, (uint64_t)app_path, sizeof path))
		return false;
	char mine[32];
	rt_format(mine, sizeof mine, "/proc/%d/fd/", (int)rt_getpid());
	const char *forms[] = {"/proc/self/fd/", "/proc/thread-self/fd/", "/dev/fd/", mine};
	for (size_t i = 0; i < sizeof forms / sizeof forms[0]; i++) {
		if (!rt_starts_with(path, forms[i]))
			continue;
		const char *digits = path + strlen(forms[i]), *d = digits;
		long n = 0;
		for (; *d >= '0' && *d <= '9' && n <= INT32_MAX; d++)
			n = n * 10 + (*d - '0');
		if (*d || d == digits || n > INT32_MAX)
			return false;
		*fd = n;
		return true;
	}
	return false;
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

enum { STATUS_CAP = 16384 };

/* A status text being edited: its lines, and room to write the next version. */
struct status_text {
	char *text, *spare;
	size_t n;
};

/* The field `name` (as "\nSeccomp:") of the text: where its value starts and ends. */
static bool status_field(const struct status_text *s, const char *name, size_t *from, size_t *to)
{
	for (size_t i = 0; i < s->n; i++) {
		if (!rt_starts_with(s->text + i, name))
			continue;
		*from = *to = i + strlen(name);
		while (*to < s->n && s->text[*to] != '\n')
			(*to)++;
		return true;
	}
	return false;
}

/* The field's value replaced by `value` (a tab first, as the kernel writes it). */
static void set_status_field(struct status_text *s, const char *name, const char *value)
{
	size_t from, to;
	if (!status_field(s, name, &from, &to))
		return;
	int len = rt_format(s->spare, STATUS_CAP, "%.*s\t%s", (int)from, s->text, value);
	size_t done = len < 0 ? 0 : (size_t)len < STATUS_CAP ? (size_t)len : STATUS_CAP - 1;
	size_t tail = s->n - to < STATUS_CAP - done ? s->n - to : STATUS_CAP - done;
	memcpy(s->spare + done, s->text + to, tail);
	char *old = s->text;
	s->text = s->spare;
	s->spare = old;
	s->n = done + tail;
}

static void set_status_number(struct status_text *s, const char *name, long value, bool add)
{
	size_t from, to;
	long old = 0;
	if (add && status_field(s, name, &from, &to))
		for (size_t d = from; d < to; d++)
			if (s->text[d] >= '0' && s->text[d] <= '9')
				old = old * 10 + (s->text[d] - '0');
	char text[24];
	rt_format(text, sizeof text, "%ld", value + old);
	set_status_field(s, name, text);
}

static void set_status_mask(struct status_text *s, const char *name, uint64_t mask)
{
	char text[24];
	rt_format(text, sizeof text, "%016lx", mask);
	set_status_field(s, name, text);
}

/* The status file the app asked for (path), with the app's signal mask, ignored and caught
 * signals (the kernel's are the runtime's), its threads without the runtime's helpers, and
 * the calling thread's seccomp mode and its
 * filters counted (seccomp.h): the kernel's lines describe the runtime, which installs none
 * (a filter the runtime itself runs under is counted too, as the app inherits it). */
static long status_file(const struct jit_thread *t, const char *app_path, int flags)
{
	char path[64];
	struct status_text s = {rt_alloc(STATUS_CAP), rt_alloc(STATUS_CAP), 0};
	long r = -ENOMEM, fd = -1;
	if (s.text && s.spare && app_copy_string(path, (uint64_t)app_path, sizeof path))
		fd = rt_openat(AT_FDCWD, path, O_RDONLY | O_CLOEXEC, 0);
	if (fd >= 0) {
		for (long got; s.n < STATUS_CAP - 1 &&
			       (got = rt_read((int)fd, s.text + s.n, STATUS_CAP - 1 - s.n)) > 0;)
			s.n += (size_t)got;
		rt_close((int)fd);
		uint64_t ignored, caught;
		signals_app_dispositions(t, &ignored, &caught);
		long helpers = helper_tids_live();
		if (helpers)
			set_status_number(&s, "\nThreads:", -helpers, true);
		set_status_mask(&s, "\nSigBlk:", jit_thread_sigmask(t));
		set_status_mask(&s, "\nSigIgn:", ignored);
		set_status_mask(&s, "\nSigCgt:", caught);
		if (seccomp_mode(t)) {
			set_status_number(&s, "\nSeccomp:", seccomp_mode(t), false);
			set_status_number(&s, "\nSeccomp_filters:", seccomp_filter_count(t), true);
		}
		r = proc_self_memory_file("status", s.text, s.n, flags);
	} else if (s.text && s.spare) {
		r = fd;
	}
	rt_free(s.text);
	rt_free(s.spare);
	return r;
}

/* The stat file the app asked for (path), its thread count (field 20) without the
 * runtime's `helpers` threads. */
static long stat_file(const char *app_path, int flags, long helpers)
{
	char path[64], text[1024];
	if (!app_copy_string(path, (uint64_t)app_path, sizeof path))
		return -EFAULT;
	long fd = rt_openat(AT_FDCWD, path, O_RDONLY | O_CLOEXEC, 0);
	if (fd < 0)
		return fd;
	long n = rt_read((int)fd, text, sizeof text - 1);
	rt_close((int)fd);
	if (n <= 0)
		return n < 0 ? n : -EIO;
	text[n] = '\0';
	/* (fields from the 3rd on follow the last ')': the name may hold spaces and parens) */
	char *field = NULL;
	for (char *p = text; *p; p++)
		if (*p == ')')
			field = p + 1;
	for (int i = 3; field && i < 20; i++)
		field = *field ? strchr(field + 1, ' ') : NULL;
	if (!field)
		return proc_self_memory_file("stat", text, (size_t)n, flags);
	char *end = strchr(field + 1, ' ');
	long threads = 0;
	for (char *d = field + 1; d < end && *d >= '0' && *d <= '9'; d++)
		threads = threads * 10 + (*d - '0');
	char edited[1024];
	int len = rt_format(edited, sizeof edited, "%.*s %ld%s", (int)(field - text), text,
			    threads - helpers, end ? end : "");
	return proc_self_memory_file("stat", edited, len > 0 ? (size_t)len : 0, flags);
}

bool proc_self_open(const struct jit_thread *t, int dirfd, const char *path, int flags, int mode,
		    long *result)
{
	/* (only a name under /proc can be one of them: every other open leaves here) */
	char head[64];
	if (!app_copy_string(head, (uint64_t)path, sizeof head) || !rt_starts_with(head, "/proc/"))
		return false;
	long helpers;
	if ((flags & O_ACCMODE) == O_RDONLY && names_own_proc_entry(dirfd, path, "stat") &&
	    (helpers = helper_tids_live())) {
		*result = stat_file(path, flags, helpers);
		return true;
	}
	if ((flags & O_ACCMODE) == O_RDONLY && names_own_proc_entry(dirfd, path, "status")) {
		*result = status_file(t, path, flags);
		return true;
	}
	if (names_own_proc_entry(dirfd, path, "cmdline")) {
		*result = proc_self_memory_file("cmdline", jit_config.app_cmdline,
						jit_config.app_cmdline_len, flags);
		return true;
	}
	/* (what the process was started with: a followed exec's driver got some of it renamed,
	 * jit/exec_env.h) */
	if (names_own_proc_entry(dirfd, path, "environ") && jit_config.app_environ) {
		*result = proc_self_memory_file("environ", jit_config.app_environ,
						jit_config.app_environ_len, flags);
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

/* A number of the kernel's /proc/self/status (name as "\nTracerPid:"); 0 when absent. */
static long kernel_status_number(const char *name)
{
	char text[4096];
	long fd = rt_openat(AT_FDCWD, "/proc/self/status", O_RDONLY | O_CLOEXEC, 0);
	if (fd < 0)
		return 0;
	long n = 0;
	for (long got; n < (long)sizeof text - 1 &&
		       (got = rt_read((int)fd, text + n, sizeof text - 1 - (size_t)n)) > 0;)
		n += got;
	rt_close((int)fd);
	text[n] = 0;
	const char *field = text;
	while (*field && !rt_starts_with(field, name))
		field++;
	if (!*field)
		return 0;
	long value = 0;
	for (field += strlen(name); *field == ' ' || *field == '\t'; field++)
		;
	for (; *field >= '0' && *field <= '9'; field++)
		value = value * 10 + (*field - '0');
	return value;
}

int proc_self_tracer(void)
{
	return (int)kernel_status_number("\nTracerPid:");
}

#include "proc_maps.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <string.h>

#include "proc_self.h"
#include "rt_alloc.h"
#include "rt_format.h"
#include "rt_syscall.h"

/* A mapping's first line ("start-end perms ..."), not one of smaps' "Key: value" lines. */
static bool is_mapping_line(const char *line, const char *end)
{
	const char *p = line;
	while (p < end && ((*p >= '0' && *p <= '9') || (*p >= 'a' && *p <= 'f')))
		p++;
	return p > line && p < end && *p == '-';
}

static bool names_vdso(const char *line, const char *end)
{
	static const char *const names[] = {" [vdso]", " [vvar]", " [vvar_vclock]"};
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
		size_t n = strlen(names[i]);
		if ((size_t)(end - line) >= n && memcmp(end - n, names[i], n) == 0)
			return true;
	}
	return false;
}

size_t proc_maps_without_vdso(char *text, size_t len)
{
	size_t out = 0;
	bool hidden = false;
	for (size_t at = 0; at < len;) {
		const char *line = text + at, *nl = memchr(line, '\n', len - at);
		const char *end = nl ? nl : text + len;
		size_t n = (size_t)(end - line) + (nl ? 1 : 0);
		if (is_mapping_line(line, end))
			hidden = names_vdso(line, end);
		if (!hidden) {
			memmove(text + out, line, n);
			out += n;
		}
		at += n;
	}
	return out;
}

/* The whole of a kernel file that has no size (procfs), in the runtime's heap. */
static char *read_whole(long fd, size_t *len)
{
	size_t cap = 1 << 16, n = 0;
	char *text = rt_alloc(cap);
	while (text) {
		if (n == cap) {
			char *bigger = rt_realloc(text, cap * 2);
			if (!bigger)
				rt_free(text);
			text = bigger;
			cap *= 2;
			continue;
		}
		long r = rt_read((int)fd, text + n, cap - n);
		if (r <= 0)
			break;
		n += (size_t)r;
	}
	*len = n;
	return text;
}

long proc_maps_open(const char *leaf, int flags)
{
	char path[32];
	rt_format(path, sizeof path, "/proc/self/%s", leaf);
	long fd = rt_openat(AT_FDCWD, path, O_RDONLY | O_CLOEXEC, 0);
	if (fd < 0)
		return fd;
	size_t len;
	char *text = read_whole(fd, &len);
	rt_close((int)fd);
	if (!text)
		return -ENOMEM;
	len = proc_maps_without_vdso(text, len);
	fd = proc_self_memory_file(leaf, text, len, flags);
	rt_free(text);
	return fd;
}

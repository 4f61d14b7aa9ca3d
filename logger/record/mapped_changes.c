#include "mapped_changes.h"

#include <fcntl.h>
#include <linux/limits.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>

#include "jit_app.h"
#include "rt_format.h"
#include "rt_string.h"
#include "rt_syscall.h"

enum { PAGE_SIZE = 4096 };

/* Views made before and after the file was unlinked name one file. */
static bool same_file(const char *a, const char *b)
{
	size_t n = rt_file_path_length(a);
	return n == rt_file_path_length(b) && !memcmp(a, b, n);
}

static bool is_file(const struct jit_app_mapping *m)
{
	return m->path && m->path[0] == '/';
}

static bool is_shared_file(const struct jit_app_mapping *m)
{
	uint32_t type = m->flags & MAP_TYPE;
	return is_file(m) && (type == MAP_SHARED || type == MAP_SHARED_VALIDATE);
}

/* Views of one file (path) over its bytes [lo, hi), or file mappings (path NULL) over the
 * addresses [lo, hi): the app ranges they cover. */
struct walk {
	const char *path;
	uint64_t lo, hi;
	struct mem_range *out;
	int n;
};

static void add(struct walk *w, uint64_t start, uint64_t end)
{
	if (start < end && w->n < MAPPED_CHANGES_MAX)
		w->out[w->n++] = (struct mem_range){start, end - start};
}

static int view_step(const struct jit_app_mapping *m, void *arg)
{
	struct walk *w = arg;
	if (!is_shared_file(m) || !same_file(m->path, w->path))
		return 0;
	uint64_t file_end = m->offset + (m->end - m->start);
	uint64_t lo = w->lo > m->offset ? w->lo : m->offset,
		 hi = w->hi < file_end ? w->hi : file_end;
	if (lo < hi)
		add(w, m->start + (lo - m->offset), m->start + (hi - m->offset));
	return 0;
}

static int file_mapping_step(const struct jit_app_mapping *m, void *arg)
{
	struct walk *w = arg;
	if (is_file(m))
		add(w, w->lo > m->start ? w->lo : m->start, w->hi < m->end ? w->hi : m->end);
	return 0;
}

static int any_shared_step(const struct jit_app_mapping *m, void *arg)
{
	(void)arg;
	return is_shared_file(m);
}

/* The views of fd's file over its bytes [lo, hi) (lo > hi: up to the position after the
 * call, hi bytes before it, for calls that write at the file position). */
static int views_of(int fd, int64_t lo, int64_t hi, bool at_position, struct mem_range *out)
{
	if (!jit_app_map_foreach(any_shared_step, NULL))
		return 0; /* the common case: no shared file mapping at all */
	char link[32], path[PATH_MAX];
	rt_format(link, sizeof link, "/proc/self/fd/%d", fd);
	long n = rt_syscall3(SYS_readlink, (long)link, (long)path, sizeof path - 1);
	if (n <= 0 || path[0] != '/')
		return 0;
	path[n] = '\0';
	if (at_position) {
		long end = rt_syscall3(SYS_lseek, fd, 0, SEEK_CUR);
		if (end < 0)
			return 0;
		lo = end - hi;
		hi = end;
	}
	if (lo < 0 || hi <= lo)
		return 0;
	struct walk w = {path, (uint64_t)lo, (uint64_t)hi, out, 0};
	jit_app_map_foreach(view_step, &w);
	return w.n;
}

static int file_mappings_over(uint64_t start, uint64_t len, struct mem_range *out)
{
	struct walk w = {NULL, start, start + ((len + PAGE_SIZE - 1) & ~(uint64_t)(PAGE_SIZE - 1)),
			 out, 0};
	if (w.hi < w.lo)
		return 0;
	jit_app_map_foreach(file_mapping_step, &w);
	return w.n;
}

int mapped_changes(long nr, const long a[6], long result, struct mem_range *out)
{
	if (result < 0)
		return 0;
	switch (nr) {
	case SYS_write:
	case SYS_writev:
		return views_of((int)a[0], 0, result, true, out);
	case SYS_pwritev2:
		if (a[3] == -1)
			return views_of((int)a[0], 0, result, true, out);
		/* fall through */
	case SYS_pwrite64:
	case SYS_pwritev:
		return views_of((int)a[0], a[3], a[3] + result, false, out);
	case SYS_fallocate:
		return views_of((int)a[0], a[2], a[2] + a[3], false, out);
	case SYS_ftruncate: /* the bytes after the new end on its page become zero */
		return views_of((int)a[0], a[1], (a[1] + PAGE_SIZE - 1) & ~(long)(PAGE_SIZE - 1),
				false, out);
	case SYS_madvise:
		if (a[2] != MADV_DONTNEED && a[2] != MADV_REMOVE)
			return 0;
		return file_mappings_over((uint64_t)a[0], (uint64_t)a[1], out);
	case SYS_mremap:
		if ((uint64_t)a[2] <= (uint64_t)a[1])
			return 0;
		return file_mappings_over((uint64_t)result + (uint64_t)a[1],
					  (uint64_t)a[2] - (uint64_t)a[1], out);
	default:
		return 0;
	}
}

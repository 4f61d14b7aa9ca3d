#include "perf_map.h"

#include <fcntl.h>
#include <string.h>

#include "config.h"
#include "jit.h"
#include "jit_app.h"
#include "jit_messages.h"
#include "rt_format.h"
#include "rt_syscall.h"

/* Read as well as written: a forked child copies its parent's lines from it. */
static int map_fd = -1;

static int create_for_this_process(void)
{
	char path[64];
	rt_format(path, sizeof path, "/tmp/perf-%ld.map", rt_getpid());
	long fd =
	    rt_openat(AT_FDCWD, path, O_RDWR | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC, 0644);
	if (fd < 0) {
		jit_message("warning: -jit:perf_map: cannot create %s (error %ld)", path, -fd);
		return -1;
	}
	return jit_runtime_fd((int)fd);
}

void perf_map_open(void)
{
	if (jit_config.perf_map)
		map_fd = create_for_this_process();
}

struct image_of {
	uint64_t pc;
	const char *path;
	uint64_t offset;
};

static int find_image(const struct jit_app_mapping *m, void *arg)
{
	struct image_of *im = arg;
	if (im->pc < m->start || im->pc >= m->end)
		return 0;
	if (m->path && m->path[0] == '/') {
		const char *slash = strrchr(m->path, '/');
		im->path = slash + 1;
		im->offset = m->offset + (im->pc - m->start);
	}
	return 1;
}

void perf_map_translated(const struct fragment *f)
{
	if (map_fd < 0)
		return;
	struct image_of im = {f->app_pc, NULL, 0};
	jit_app_map_foreach(find_image, &im);
	char line[512];
	size_t n = im.path ? rt_format(line, sizeof line, "%lx %x app 0x%lx %s+0x%lx\n",
				       (unsigned long)f->indirect_entry, f->cache_size,
				       (unsigned long)f->app_pc, im.path, (unsigned long)im.offset)
			   : rt_format(line, sizeof line, "%lx %x app 0x%lx\n",
				       (unsigned long)f->indirect_entry, f->cache_size,
				       (unsigned long)f->app_pc);
	if (n >= sizeof line)
		n = sizeof line - 1;
	rt_write_all(map_fd, line, n);
}

void perf_map_after_fork(void)
{
	if (map_fd < 0)
		return;
	int parent = map_fd;
	map_fd = create_for_this_process();
	char buf[4096];
	long got;
	for (long at = 0;
	     map_fd >= 0 && (got = rt_syscall4(SYS_pread64, parent, (long)buf, sizeof buf, at)) > 0;
	     at += got)
		rt_write_all(map_fd, buf, (size_t)got);
	jit_runtime_fd_close(parent);
}

#include "output_echo.h"

#include <errno.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>

#include "instrument.h"
#include "rt_syscall.h"

static struct file_id streams[2];

void output_echo_init(struct file_id out, struct file_id err)
{
	streams[0] = out;
	streams[1] = err;
}

static bool same_file(const struct stat *st, int stream)
{
	const struct file_id *f = &streams[stream - 1];
	return f->valid && f->dev == st->st_dev && f->ino == st->st_ino;
}

uint32_t output_echo_stream(int fd)
{
	struct stat st;
	if (rt_syscall2(SYS_fstat, fd, (long)&st) < 0)
		return 0;
	if ((fd == 1 || fd == 2) && same_file(&st, fd))
		return (uint32_t)fd;
	return same_file(&st, 1) ? 1 : same_file(&st, 2) ? 2 : 0;
}

/* An offset the call takes by pointer (NULL: the file's own position). */
static bool read_offset(long ptr, int64_t *off)
{
	return !ptr || jit_read_app_memory(off, (uint64_t)ptr, sizeof *off);
}

static void add_to_offset(long ptr, int64_t off, long moved)
{
	if (!ptr)
		return;
	off += moved;
	struct iovec local = {&off, sizeof off}, remote = {(void *)ptr, sizeof off};
	rt_syscall6(SYS_process_vm_writev, rt_gettid(), (long)&local, 1, (long)&remote, 1, 0);
}

static bool file_type(long fd, unsigned type)
{
	struct stat st;
	return rt_syscall2(SYS_fstat, fd, (long)&st) == 0 && (st.st_mode & S_IFMT) == type;
}

/* Whether the kernel accepts the copy between these kinds of files (the read and write
 * that stand in for it must not succeed where the call fails). */
static bool kernel_would_copy(long nr, long in, long in_off, long out, long out_off, long flags)
{
	switch (nr) {
	case SYS_sendfile:
		return file_type(in, S_IFREG);
	case SYS_copy_file_range:
		return !flags && file_type(in, S_IFREG) && file_type(out, S_IFREG);
	default: { /* splice: from or to a pipe, which takes no offset */
		bool in_pipe = file_type(in, S_IFIFO), out_pipe = file_type(out, S_IFIFO);
		return (in_pipe || out_pipe) && !(in_pipe && in_off) && !(out_pipe && out_off);
	}
	}
}

bool output_echo_copy(long nr, const long a[6], uint8_t *buf, size_t cap, long *result)
{
	long in, in_off, out, out_off, len;
	switch (nr) {
	case SYS_sendfile:
		out = a[0], in = a[1], in_off = a[2], out_off = 0, len = a[3];
		break;
	case SYS_splice:
	case SYS_copy_file_range:
		in = a[0], in_off = a[1], out = a[2], out_off = a[3], len = a[4];
		break;
	default:
		return false;
	}
	if (!kernel_would_copy(nr, in, in_off, out, out_off, a[5]))
		return false;
	int64_t from = 0, to = 0;
	if (!read_offset(in_off, &from) || !read_offset(out_off, &to)) {
		*result = -EFAULT;
		return true;
	}
	size_t n = (size_t)len < cap ? (size_t)len : cap;
	long got = in_off ? rt_syscall4(SYS_pread64, in, (long)buf, (long)n, from)
			  : rt_syscall3(SYS_read, in, (long)buf, (long)n);
	if (got <= 0) {
		*result = got;
		return true;
	}
	add_to_offset(in_off, from, got);
	long put = 0;
	while (put < got) {
		long w =
		    out_off ? rt_syscall4(SYS_pwrite64, out, (long)(buf + put), got - put, to + put)
			    : rt_syscall3(SYS_write, out, (long)(buf + put), got - put);
		if (w <= 0) {
			if (!put)
				put = w;
			break;
		}
		put += w;
	}
	if (put > 0)
		add_to_offset(out_off, to, put);
	*result = put;
	return true;
}

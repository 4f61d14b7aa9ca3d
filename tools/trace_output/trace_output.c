#include "trace_output.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "jit_messages.h"
#include "trace_codec.h"

/* Output descriptors live high, away from the numbers an app under the logger uses. */
enum { HIGH_FD = 600 };

struct trace_output {
	char *path; /* as given, for messages */
	int dirfd;
	char *name;    /* in dirfd */
	char *partial; /* the file's temporary name when the file system has no O_TMPFILE */
	int fd;
	bool direct; /* a device or a pipe (/dev/null, /dev/stdout): written as it is */
	struct trace_codec *codec;
	uint64_t in, out;
	int error; /* the first write's errno, or -1 for a compression error */
};

static int move_high(int fd)
{
	int high = fcntl(fd, F_DUPFD_CLOEXEC, HIGH_FD);
	if (high < 0)
		return fd;
	close(fd);
	return high;
}

static bool write_out(const void *data, size_t len, void *arg)
{
	struct trace_output *o = arg;
	const char *p = data;
	while (len) {
		ssize_t n = write(o->fd, p, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			o->error = n < 0 ? errno : ENOSPC;
			return false;
		}
		p += n;
		len -= (size_t)n;
		o->out += (uint64_t)n;
	}
	return true;
}

static char *partial_name(const char *name)
{
	char *s = NULL;
	static unsigned serial;
	if (asprintf(&s, ".%s.partial.%d.%u", name, (int)getpid(), serial++) < 0)
		return NULL;
	return s;
}

static void discard(struct trace_output *o)
{
	if (o->partial)
		unlinkat(o->dirfd, o->partial, 0);
	if (o->fd >= 0)
		close(o->fd);
	if (o->dirfd >= 0)
		close(o->dirfd);
	free(o->partial);
	free(o->name);
	free(o->path);
	free(o);
}

/* The directory and the name in it. */
static bool split(struct trace_output *o, const char *path, char *err, size_t errlen)
{
	const char *slash = strrchr(path, '/');
	char *dir = slash ? strndup(path, (size_t)(slash - path) + 1) : strdup(".");
	o->name = strdup(slash ? slash + 1 : path);
	if (!dir || !o->name) {
		free(dir);
		snprintf(err, errlen, "out of memory");
		return false;
	}
	o->dirfd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
	free(dir);
	struct stat st;
	if (o->dirfd < 0 || !*o->name) {
		snprintf(err, errlen, "cannot write '%s': %s", path,
			 o->dirfd < 0 ? strerror(errno) : "Is a directory");
		return false;
	}
	if (!fstatat(o->dirfd, o->name, &st, 0) && S_ISDIR(st.st_mode)) {
		snprintf(err, errlen, "cannot write '%s': Is a directory", path);
		return false;
	}
	o->direct = !fstatat(o->dirfd, o->name, &st, 0) && !S_ISREG(st.st_mode);
	return true;
}

struct trace_output *trace_output_open(const char *path, int level, char *err, size_t errlen)
{
	struct trace_output *o = calloc(1, sizeof *o);
	if (!o) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	o->fd = o->dirfd = -1;
	if (!(o->path = strdup(path)) || !split(o, path, err, errlen)) {
		if (!o->path)
			snprintf(err, errlen, "out of memory");
		discard(o);
		return NULL;
	}
	if (o->direct)
		o->fd = openat(o->dirfd, o->name, O_WRONLY | O_CLOEXEC);
	else
		o->fd = openat(o->dirfd, ".", O_TMPFILE | O_WRONLY | O_CLOEXEC, 0644);
	if (o->fd < 0 && !o->direct &&
	    (errno == EOPNOTSUPP || errno == EISDIR || errno == EINVAL)) {
		o->partial = partial_name(o->name);
		if (o->partial)
			o->fd = openat(o->dirfd, o->partial,
				       O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0644);
	}
	if (o->fd < 0) {
		snprintf(err, errlen, "cannot write '%s': %s", path, strerror(errno));
		discard(o);
		return NULL;
	}
	o->fd = move_high(o->fd);
	if (!(o->codec = trace_codec_new(o->name, level, write_out, o, err, errlen))) {
		discard(o);
		return NULL;
	}
	return o;
}

bool trace_output_write(struct trace_output *o, const void *data, size_t len)
{
	if (o->error)
		return false;
	o->in += len;
	if (!trace_codec_write(o->codec, data, len) && !o->error)
		o->error = -1;
	return !o->error;
}

void trace_output_must_write(struct trace_output *o, const void *data, size_t len, const char *who)
{
	if (trace_output_write(o, data, len))
		return;
	char err[512];
	trace_output_close(o, err, sizeof err);
	jit_fatal("%s: %s", who, err);
}

/* Gives the unnamed file a temporary name, then the final one in one step. */
static bool name_it(struct trace_output *o)
{
	if (!o->partial) {
		char proc[64];
		snprintf(proc, sizeof proc, "/proc/self/fd/%d", o->fd);
		if (!(o->partial = partial_name(o->name)) ||
		    linkat(AT_FDCWD, proc, o->dirfd, o->partial, AT_SYMLINK_FOLLOW))
			return false;
	}
	if (renameat(o->dirfd, o->partial, o->dirfd, o->name))
		return false;
	free(o->partial);
	o->partial = NULL;
	return true;
}

int trace_output_close(struct trace_output *o, char *err, size_t errlen)
{
	bool ended = trace_codec_end(o->codec);
	if (!ended && !o->error)
		o->error = -1;
	if (!o->error && !o->direct && !name_it(o))
		o->error = errno ? errno : EIO;
	int failed = o->error;
	if (failed)
		snprintf(err, errlen, "cannot write '%s': %s", o->path,
			 failed < 0 ? "compression failed" : strerror(failed));
	discard(o);
	return failed ? -1 : 0;
}

uint64_t trace_output_bytes_in(const struct trace_output *o)
{
	return o->in;
}

uint64_t trace_output_bytes_out(const struct trace_output *o)
{
	return o->out;
}

char *trace_output_tagged_path(const char *path, const char *tag)
{
	size_t n = strlen(path);
	bool compressed = n > 3 && (!strcmp(path + n - 3, ".xz") || !strcmp(path + n - 3, ".gz"));
	size_t stem = compressed ? n - 3 : n;
	char *s = NULL;
	return asprintf(&s, "%.*s%s%s", (int)stem, path, tag, path + stem) < 0 ? NULL : s;
}

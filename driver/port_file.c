#include "port_file.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int name_file(struct rt_port_file *f, const char *base, const char *who, char *err,
		     size_t errlen)
{
	char cwd[PATH_MAX] = "";
	if (base[0] != '/' && !getcwd(cwd, sizeof cwd)) {
		snprintf(err, errlen, "%s: cannot find the current directory: %s", who,
			 strerror(errno));
		return -1;
	}
	int n = snprintf(f->path, sizeof f->path, "%s%s%s.%d", cwd, cwd[0] ? "/" : "", base,
			 (int)getpid());
	if (n < 0 || (size_t)n >= sizeof f->path) {
		snprintf(err, errlen, "%s: the port file name is too long", who);
		return -1;
	}
	return 0;
}

int port_file_create(struct rt_port_file *f, const char *base, unsigned port, const char *who,
		     char *err, size_t errlen)
{
	if (name_file(f, base, who, err, errlen))
		return -1;
	const char *path = f->path;
	struct stat st;
	if (lstat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
		snprintf(err, errlen, "%s: '%s' is %s: not writing the port there", who, path,
			 S_ISLNK(st.st_mode) ? "a symbolic link" : "not a regular file");
		return -1;
	}
	char tmp[PATH_MAX + 8];
	snprintf(tmp, sizeof tmp, "%s.XXXXXX", path);
	int fd = mkostemp(tmp, O_CLOEXEC);
	bool ok = fd >= 0 && fchmod(fd, 0600) == 0 && dprintf(fd, "%u\n", port) > 0;
	if (fd >= 0 && close(fd))
		ok = false;
	if (!ok || rename(tmp, path)) {
		snprintf(err, errlen, "%s: cannot write '%s': %s", who, path, strerror(errno));
		if (fd >= 0)
			unlink(tmp);
		return -1;
	}
	f->owner = getpid();
	return 0;
}

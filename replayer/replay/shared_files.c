#include "shared_files.h"

#include <linux/memfd.h>
#include <string.h>
#include <sys/syscall.h>

#include "jit.h"
#include "rt_alloc.h"
#include "rt_string.h"
#include "rt_syscall.h"

enum { MAX_FILES = 64 };
/* Every view of a file fits: no access past its end faults (SIGBUS), and tmpfs keeps
 * untouched pages of a sparse file for free. */
static const long MEMORY_FILE_SIZE = 1l << 40;

static struct {
	char *path;
	size_t len;
	int fd;
} files[MAX_FILES];
static size_t nfiles;

int shared_file_memfd(const char *path)
{
	size_t len = rt_file_path_length(path);
	for (size_t i = 0; i < nfiles; i++)
		if (files[i].len == len && !memcmp(files[i].path, path, len))
			return files[i].fd;
	if (nfiles == MAX_FILES)
		return -1;
	char *copy = rt_alloc(len + 1);
	long fd = rt_syscall2(SYS_memfd_create, (long)"replayed shared file", MFD_CLOEXEC);
	if (!copy || fd < 0 || rt_syscall2(SYS_ftruncate, fd, MEMORY_FILE_SIZE) < 0) {
		rt_free(copy);
		if (fd >= 0)
			rt_close((int)fd);
		return -1;
	}
	memcpy(copy, path, len);
	copy[len] = '\0';
	files[nfiles].path = copy;
	files[nfiles].len = len;
	files[nfiles].fd = jit_runtime_fd((int)fd); /* out of the app's reach */
	return files[nfiles++].fd;
}

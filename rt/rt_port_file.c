#include "rt_port_file.h"

#include <fcntl.h>

#include "rt_syscall.h"

void rt_port_file_remove(struct rt_port_file *f)
{
	/* A forked child ends with the file still its parent's. Two threads dying at once
	 * may both unlink: the second finds nothing, harmlessly. */
	if (f->owner && f->owner == rt_getpid()) {
		rt_syscall3(SYS_unlinkat, AT_FDCWD, (long)f->path, 0);
		f->owner = 0;
	}
}

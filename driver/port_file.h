/* Creating a port file (rt_port_file.h): <base>.<pid>, absolute (so that removing it at
 * exit does not depend on the app's working directory then), private (0600), written
 * through a temporary file created anew (O_EXCL) and renamed over the name: a reader never
 * sees it half written, a stale file of an earlier process with our pid is replaced, and a
 * symbolic link (or anything but a regular file) found at the name is refused, never
 * written through. Driver main thread (glibc). */
#ifndef DRIVER_PORT_FILE_H
#define DRIVER_PORT_FILE_H

#include <stddef.h>

#include "rt_port_file.h"

/* who names the listener in messages ("interactive controller"). 0, or -1 with a one-line
 * reason in err. */
int port_file_create(struct rt_port_file *f, const char *base, unsigned port, const char *who,
		     char *err, size_t errlen);

#endif

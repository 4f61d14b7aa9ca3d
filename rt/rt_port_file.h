/* A file that tells scripts on which port a listener of this process (the interactive
 * controller, the gdb stub) waits. The driver creates it (driver/port_file.h); the process
 * that wrote it removes it at any end: normal exit, fatal error, death by signal. The
 * removal is TLS-free, for the JIT's end hooks on app threads. */
#ifndef RT_PORT_FILE_H
#define RT_PORT_FILE_H

#include <limits.h>

struct rt_port_file {
	char path[PATH_MAX]; /* absolute */
	long owner;	     /* the pid that wrote it (a forked child leaves it); 0: none */
};

void rt_port_file_remove(struct rt_port_file *f);

#endif

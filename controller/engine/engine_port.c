/* The interactive listener's port file is removed when the process that wrote it ends: at a
 * normal exit, a fatal error, a death by signal (JIT hooks, on app threads: raw system
 * calls only), and when the driver itself exits before the app started (atexit). */
#include <fcntl.h>

#include "engine_internal.h"
#include "rt_syscall.h"

void engine_remove_port_file(void)
{
	/* A forked child ends with the file still its parent's. Two threads dying at once
	 * may both unlink: the second finds nothing, harmlessly. */
	if (engine.port_owner && engine.port_owner == rt_getpid()) {
		rt_syscall3(SYS_unlinkat, AT_FDCWD, (long)engine.port_file, 0);
		engine.port_owner = 0;
	}
}

void engine_process_ends(int status, void *arg)
{
	(void)status;
	(void)arg;
	engine_remove_port_file();
}

void engine_app_dies(struct jit_thread *t, int sig, enum jit_death_place where, void *arg)
{
	(void)t;
	(void)sig;
	(void)where;
	(void)arg;
	engine_remove_port_file();
}

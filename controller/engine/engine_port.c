/* The interactive listener's port file is removed when the process that wrote it ends: at a
 * normal exit, a fatal error, a death by signal (JIT hooks, on app threads: raw system
 * calls only), and when the driver itself exits before the app started (atexit). */
#include "engine_internal.h"

void engine_remove_port_file(void)
{
	rt_port_file_remove(&engine.port_file);
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

/* Loading a value profiler (pintrace_vprofiler.h) and checking it: its table, its version,
 * its required functions, its init. For the drivers' -vprofile and `pinball vplist`
 * (glibc). */
#ifndef TOOL_VPROF_PLUGIN_H
#define TOOL_VPROF_PLUGIN_H

#include <stddef.h>

#include "pintrace_vprofiler.h"

struct vp_plugin {
	void *handle;
	const struct vprof_plugin *table;
	char *path;	  /* absolute */
	const char *name; /* table->name()'s */
};

/* `what` is a path (it has a '/' or ends in ".so") or the name of a bundled profiler
 * ("classic" is vp-classic.so, installed with the programs). Loads it, checks it and runs
 * its init. 0, or -1 with a one-line reason naming the plug-in. */
int vp_plugin_load(const char *what, struct vp_plugin *p, char *err, size_t errlen);

/* Runs its release and unloads it. */
void vp_plugin_unload(struct vp_plugin *p);

#endif

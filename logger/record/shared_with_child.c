#include "shared_with_child.h"

#include <stdbool.h>
#include <sys/mman.h>

#include "jit_app.h"
#include "jit_messages.h"
#include "rt_syscall.h"

static bool told;

static int shared_writable(const struct jit_app_mapping *m, void *arg)
{
	const struct jit_app_mapping **found = arg;
	if ((m->flags & MAP_SHARED) && (m->prot & PROT_WRITE)) {
		*found = m;
		return 1;
	}
	return 0;
}

void shared_with_child_check(long child)
{
	const struct jit_app_mapping *m = NULL;
	if (told || !jit_app_map_foreach(shared_writable, &m))
		return;
	told = true;
	jit_message("warning: process %ld forked process %ld while they share writable memory "
		    "(%s at 0x%lx, MAP_SHARED): what the child writes there is not recorded, and "
		    "a replay diverges where this process reads it",
		    rt_getpid(), child, m->path ? m->path : "anonymous", m->start);
}

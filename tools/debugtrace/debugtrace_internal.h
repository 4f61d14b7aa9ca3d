/* Between the -debugtrace client (app threads) and its set-up (driver). */
#ifndef TOOL_DEBUGTRACE_INTERNAL_H
#define TOOL_DEBUGTRACE_INTERNAL_H

#include <stddef.h>

#include "handoff.h"

/* The client, whose lines go to h. 0, or -1 with the reason in err. */
int debugtrace_client_register(struct handoff *h, char *err, size_t errlen);

#endif

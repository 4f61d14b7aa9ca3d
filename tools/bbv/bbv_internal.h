/* Between the -bbv client (app threads) and its set-up (driver). */
#ifndef TOOL_BBV_INTERNAL_H
#define TOOL_BBV_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "handoff.h"

/* The client, whose lines go to h, tagged with their thread. 0, or -1 with the reason. */
int bbv_client_register(struct handoff *h, uint64_t interval, char *err, size_t errlen);

#endif

#ifndef LOADER_WATCH_H
#define LOADER_WATCH_H

#include "jit.h"

/* Starts the driver's watchdog helper (jit_run_options.watch; 0 on success). */
int watch_start(const struct jit_run_options *o);

#endif

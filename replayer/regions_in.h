/* -log:regions:in FILE (as PinPlay's): the regions to relog, from a CSV file, as -control
 * chains (driver main thread, glibc). */
#ifndef REPLAYER_REGIONS_IN_H
#define REPLAYER_REGIONS_IN_H

#include <stddef.h>

#include "control_spec.h"

/* Adds "start:icount:S,stop:icount:L" to spec for each line "<region>,<start S>,<length L>,..."
 * of the file ('#' comments, a header line and blank lines are skipped). 0, or -1 with a
 * one-line reason naming the file and line. */
int regions_in_load(const char *path, struct control_spec *spec, char *err, size_t errlen);

#endif

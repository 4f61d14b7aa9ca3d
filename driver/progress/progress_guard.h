/* The app-thread side of the progress line: the JIT client that erases it before the
 * app's output, and the drawing itself under one lock. TLS-free. */
#ifndef PROGRESS_GUARD_H
#define PROGRESS_GUARD_H

#include <stdbool.h>

void progress_guard_register(void);
/* Draws text over the line unless the app wrote lately, left a line unfinished, or the
 * process image is ending. False when it did not draw. */
bool progress_guard_draw(const char *text);

#endif

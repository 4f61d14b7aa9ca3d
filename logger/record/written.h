/* The pinballs this process image wrote, told to the user when the image ends (its exit or
 * exec), one line each, unless -q. App threads, TLS-free. */
#ifndef LOGGER_WRITTEN_H
#define LOGGER_WRITTEN_H

#include <stdbool.h>

void written_init(bool quiet);
/* A finished pinball, as the writer described it. */
void written_add(const char *line);
/* Prints the lines not printed yet. */
void written_tell(void);

#endif

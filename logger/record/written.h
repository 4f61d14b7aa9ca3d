/* The pinballs this process image wrote, told to the user when the image ends (its exit or
 * exec), one line each, unless -q; and, when a process forked in a region ends without an
 * exec, that it was not recorded. App threads, TLS-free. */
#ifndef LOGGER_WRITTEN_H
#define LOGGER_WRITTEN_H

#include <stdbool.h>
#include <stdint.h>

/* `told_from`: a directory (the run's start) that pinballs under it are named from, as the
 * user gave them (NULL: every name whole). */
void written_init(bool quiet, const char *told_from);
/* A finished pinball, as the writer described it. */
void written_add(const char *line);
/* This process is a child forked while region `region` recorded: it is not recorded until
 * it execs (its exec'd image records as a process of its own). */
void written_forked_in_region(uint32_t region);
/* Prints the lines not printed yet; when the process ends (not at an exec), also that a
 * child forked in a region was not recorded. */
void written_tell(bool process_ends);

#endif

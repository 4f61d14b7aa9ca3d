/* The logger's progress line (driver/progress): the region, instructions, bytes written. */
#ifndef LOGGER_PROGRESS_TEXT_H
#define LOGGER_PROGRESS_TEXT_H

#include "progress_line.h"

void logger_progress_text(char *buf, size_t cap, const struct progress_sample *s);

#endif

/* The part of every pinball header that describes the recording run and the machine
 * (built once at start-up, on the driver's main thread). */
#ifndef LOGGER_HEADER_H
#define LOGGER_HEADER_H

#include "pinball.h"

/* argv: the app's command line. The result's strings live as long as the process. */
void header_describe_run(struct pinball_header *h, int argc, char *const *argv, char *const *envp);

#endif

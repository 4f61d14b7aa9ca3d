/* Runs a table of Check suites: all of them, or the one named by argv[1] (so CTest can
 * register each suite as its own test). Every Check test executable's main calls this. */
#ifndef UNIT_RUNNER_H
#define UNIT_RUNNER_H

#include <check.h>

struct unit_suite {
	const char *name;
	Suite *(*make)(void);
};

/* table ends with {NULL, NULL}. Returns the process exit status. */
int unit_run(const struct unit_suite *table, int argc, char **argv);

#endif

/* A run whose pinballs could not all be written (a full disk): each process that lost one
 * goes on unrecorded with its own exit status, so that the app behaves as natively (a
 * build keeps building); the process the user started then exits with 1, told by the
 * others through a file in the run's session directory. App threads, TLS-free. */
#ifndef LOGGER_RUN_FAILURE_H
#define LOGGER_RUN_FAILURE_H

#include <stdbool.h>

/* root: this is the process the user started. *session_dir: the run's session directory
 * when the process ends or fails (NULL: none, and the others' failures go unheard). */
void run_failure_init(bool root, const char *const *session_dir);
/* A pinball of this process could not be written. */
void run_failure_note(void);
/* At the process's end: whether it is the root and some pinball of the run was lost. */
bool run_failure_seen(void);

#endif

#ifndef LOADER_STRESS_STOP_H
#define LOADER_STRESS_STOP_H

/* Starts the stop-the-world stress helper (0 on success). */
int stress_stop_start(unsigned ms);

#endif

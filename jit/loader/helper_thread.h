#ifndef LOADER_HELPER_THREAD_H
#define LOADER_HELPER_THREAD_H

/* Starts fn(arg) on a detached helper thread of the driver's that blocks every signal
 * (the app's are the runtime's to take, on app threads). 0 on success. */
int helper_thread_start(void *(*fn)(void *arg), void *arg);

#endif

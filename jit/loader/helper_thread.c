#include "jit.h"

#include <pthread.h>
#include <signal.h>

#include "runtime_fds.h"

int jit_helper_thread_start(void *(*fn)(void *arg), void *arg)
{
	runtime_fds_prepare();
	sigset_t all, old;
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	pthread_t t;
	int rc = pthread_create(&t, NULL, fn, arg);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (rc == 0)
		pthread_detach(t);
	return rc;
}

#include "jit.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>

#include "../helper_tids.h"
#include "runtime_fds.h"

struct helper_start {
	void *(*fn)(void *arg);
	void *arg;
};

/* The helper is among the runtime's threads while it does its work. */
static void *helper_main(void *arg)
{
	struct helper_start start = *(struct helper_start *)arg;
	free(arg);
	helper_tids_note_self();
	void *result = start.fn(start.arg);
	helper_tids_forget_self();
	return result;
}

int jit_helper_thread_start(void *(*fn)(void *arg), void *arg)
{
	struct helper_start *start = malloc(sizeof *start);
	if (!start)
		return ENOMEM;
	*start = (struct helper_start){fn, arg};
	runtime_fds_prepare();
	sigset_t all, old;
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	pthread_t t;
	int rc = pthread_create(&t, NULL, helper_main, start);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (rc == 0)
		pthread_detach(t);
	else
		free(start);
	return rc;
}

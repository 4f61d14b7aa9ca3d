#include "chunk_helper.h"

#include <pthread.h>
#include <unistd.h>

#include "pinball.h"

static int start_detached(void *(*fn)(void *arg), void *arg)
{
	pthread_t t;
	int rc = pthread_create(&t, NULL, fn, arg);
	if (rc == 0)
		pthread_detach(t);
	return rc;
}

static int (*start_thread)(void *(*fn)(void *arg), void *arg) = start_detached;

void pinball_set_thread_starter(int (*start)(void *(*fn)(void *arg), void *arg))
{
	start_thread = start;
}

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t changed = PTHREAD_COND_INITIALIZER;
static struct chunk_job *current; /* given and not yet waited for */
static pid_t helper_pid;	  /* the process whose helper runs (0: none; a fork has none) */
static pid_t failed_pid;	  /* the process where none could be started */
static unsigned long chunks;

static void *helper_main(void *arg)
{
	(void)arg;
	static struct chunk_scratch scratch; /* the helper's own: the writer's is in use */
	pthread_mutex_lock(&lock);
	for (;;) {
		while (!current || current->done)
			pthread_cond_wait(&changed, &lock);
		struct chunk_job *job = current;
		pthread_mutex_unlock(&lock);
		long n = chunk_compress(&scratch, job->how, job->raw, job->raw_len);
		pthread_mutex_lock(&lock);
		job->out = scratch.buf;
		job->stored = n;
		job->done = true;
		chunks++;
		pthread_cond_broadcast(&changed);
	}
	return NULL;
}

bool chunk_helper_give(struct chunk_job *job)
{
	pid_t self = getpid();
	if (failed_pid == self)
		return false;
	if (helper_pid != self) { /* never started here, or a fork's copy of the parent's */
		pthread_mutex_init(&lock, NULL);
		pthread_cond_init(&changed, NULL);
		current = NULL;
		if (start_thread(helper_main, NULL)) {
			failed_pid = self;
			return false;
		}
		helper_pid = self;
	}
	pthread_mutex_lock(&lock);
	bool idle = !current;
	if (idle) {
		job->done = false;
		current = job;
		pthread_cond_broadcast(&changed);
	}
	pthread_mutex_unlock(&lock);
	return idle;
}

void chunk_helper_wait(struct chunk_job *job)
{
	pthread_mutex_lock(&lock);
	while (!job->done)
		pthread_cond_wait(&changed, &lock);
	if (current == job)
		current = NULL;
	pthread_mutex_unlock(&lock);
}

unsigned long chunk_helper_chunks(void)
{
	pthread_mutex_lock(&lock);
	unsigned long n = chunks;
	pthread_mutex_unlock(&lock);
	return n;
}

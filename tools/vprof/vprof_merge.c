#include "vprof_merge.h"

#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jit_messages.h"

enum { SLOTS = 4 };

static struct {
	struct vp_profile *profile;
	struct vp_merge_batch *slots[SLOTS];
	pthread_mutex_t lock;
	pthread_cond_t changed;
	unsigned filled, merged; /* batches handed over, and merged (both ever-growing) */
	unsigned taken;		 /* batches given out to fill */
	bool ending;
	pthread_t thread;
} vm = {.lock = PTHREAD_MUTEX_INITIALIZER, .changed = PTHREAD_COND_INITIALIZER};

static struct vp_stat *stat_of(uint64_t pc)
{
	struct vp_stat *s = vp_profile_stat(vm.profile, pc);
	if (!s)
		jit_fatal("-vprofile: out of memory for the profile");
	return s;
}

/* The record of the instruction an entry came from, kept at its origin (only this thread
 * writes there). */
static struct vp_stat *stat_from(const struct vp_origin *o)
{
	struct vp_stat *s = *o->stat;
	if (!s) {
		*o->stat = s = stat_of(o->pc);
		s->length = o->insn->length;
		memcpy(s->bytes, o->insn->bytes, o->insn->length);
	}
	return s;
}

/* Samples whose slot is loaded while the current one merges (and twice as many whose
 * record is). */
enum { AHEAD = 8 };

/* The record of each sample of the batch being merged. */
static struct vp_stat *sample_stat[VP_MERGE_BATCH * VPROF_MAX_SAMPLES_PER_ENTRY];

/* A sample is usually of its entry's instruction, and the samples come in the entries'
 * order: its record is found through the entry, without a search. The records first, then
 * the samples into them, each one's record and slot loaded a few samples ahead: a busy profile's
 * tables do not fit the caches, and misses that overlap cost less. */
static void merge(const struct vp_merge_batch *b)
{
	for (size_t i = 0; i < b->n; i++)
		stat_from(&b->from[i])->executions++;
	size_t j = 0;
	for (size_t k = 0; k < b->m; k++) {
		const struct vprof_sample *x = &b->samples[k];
		size_t ahead = j;
		while (ahead < b->n && ahead < j + 8 && b->from[ahead].pc != x->pc)
			ahead++;
		if (ahead < b->n && b->from[ahead].pc == x->pc) {
			j = ahead;
			sample_stat[k] = stat_from(&b->from[j]);
		} else {
			sample_stat[k] = stat_of(x->pc);
		}
	}
	for (size_t k = 0; k < b->m; k++) {
		if (k + 2 * AHEAD < b->m) /* the record, whose table the slot's load needs */
			__builtin_prefetch(sample_stat[k + 2 * AHEAD]);
		if (k + AHEAD < b->m)
			vp_profile_prefetch(vm.profile, sample_stat[k + AHEAD],
					    &b->samples[k + AHEAD]);
		if (vp_profile_add(vm.profile, sample_stat[k], &b->samples[k]))
			jit_fatal("-vprofile: out of memory for the profile");
	}
}

static void *merger(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&vm.lock);
	for (;;) {
		while (vm.merged == vm.filled && !vm.ending)
			pthread_cond_wait(&vm.changed, &vm.lock);
		if (vm.merged == vm.filled)
			break;
		struct vp_merge_batch *b = vm.slots[vm.merged % SLOTS];
		pthread_mutex_unlock(&vm.lock);
		merge(b);
		pthread_mutex_lock(&vm.lock);
		vm.merged++;
		pthread_cond_broadcast(&vm.changed);
	}
	pthread_mutex_unlock(&vm.lock);
	return NULL;
}

int vp_merge_start(struct vp_profile *p, char *err, size_t errlen)
{
	vm.profile = p;
	for (int i = 0; i < SLOTS; i++)
		if (!(vm.slots[i] = malloc(sizeof *vm.slots[i]))) {
			snprintf(err, errlen, "out of memory for -vprofile");
			return -1;
		}
	sigset_t all, old;
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	int e = pthread_create(&vm.thread, NULL, merger, NULL);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (e) {
		snprintf(err, errlen, "cannot start a helper thread: %s", strerror(e));
		return -1;
	}
	return 0;
}

struct vp_merge_batch *vp_merge_get(void)
{
	pthread_mutex_lock(&vm.lock);
	while (vm.taken - vm.merged == SLOTS)
		pthread_cond_wait(&vm.changed, &vm.lock);
	struct vp_merge_batch *b = vm.slots[vm.taken++ % SLOTS];
	pthread_mutex_unlock(&vm.lock);
	return b;
}

void vp_merge_put(struct vp_merge_batch *b)
{
	(void)b; /* batches are filled and handed over in the order they were given out */
	pthread_mutex_lock(&vm.lock);
	vm.filled++;
	pthread_cond_broadcast(&vm.changed);
	pthread_mutex_unlock(&vm.lock);
}

void vp_merge_finish(void)
{
	pthread_mutex_lock(&vm.lock);
	vm.ending = true;
	pthread_cond_broadcast(&vm.changed);
	pthread_mutex_unlock(&vm.lock);
	pthread_join(vm.thread, NULL);
}

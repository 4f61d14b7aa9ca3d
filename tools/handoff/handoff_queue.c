/* The queue between app threads and the helper: a FIFO of handed-over buffers, a stack of
 * empty ones to reuse, futex words to sleep on. Raw futexes and the runtime's mutex only,
 * usable from both sides. */
#include <sys/mman.h>

#include "handoff_internal.h"
#include "rt_syscall.h"

/* A forked child's buffers would wait for a helper that stayed in the parent. */
static bool orphaned(const struct handoff *h)
{
	return rt_getpid() != h->pid;
}

struct handoff_buffer *handoff_get(struct handoff *h)
{
	for (;;) {
		rt_mutex_lock(&h->lock);
		struct handoff_buffer *b = h->free;
		if (b)
			h->free = b->next;
		int behind = h->queued;
		int seen = __atomic_load_n(&h->recycled, __ATOMIC_ACQUIRE);
		rt_mutex_unlock(&h->lock);
		if (b || behind < HANDOFF_MAX_QUEUED || orphaned(h)) {
			if (!b) {
				long r = rt_mmap(NULL, sizeof *b, PROT_READ | PROT_WRITE,
						 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
				b = rt_is_error(r) ? NULL : (struct handoff_buffer *)r;
			}
			if (b)
				b->used = 0;
			return b;
		}
		rt_futex_wait(&h->recycled, seen);
	}
}

void handoff_put(struct handoff *h, struct handoff_buffer *b)
{
	if (orphaned(h)) {
		handoff_recycle(h, b);
		return;
	}
	b->next = NULL;
	rt_mutex_lock(&h->lock);
	if (h->tail)
		h->tail->next = b;
	else
		h->head = b;
	h->tail = b;
	h->queued++;
	__atomic_fetch_add(&h->handed, 1, __ATOMIC_RELEASE);
	rt_mutex_unlock(&h->lock);
	rt_futex_wake(&h->handed, 1);
}

struct handoff_buffer *handoff_next(struct handoff *h)
{
	for (;;) {
		rt_mutex_lock(&h->lock);
		struct handoff_buffer *b = h->head;
		if (b && !(h->head = b->next))
			h->tail = NULL;
		int seen = __atomic_load_n(&h->handed, __ATOMIC_ACQUIRE);
		int ending = h->ending;
		rt_mutex_unlock(&h->lock);
		if (b || ending)
			return b;
		rt_futex_wait(&h->handed, seen);
	}
}

void handoff_recycle(struct handoff *h, struct handoff_buffer *b)
{
	rt_mutex_lock(&h->lock);
	b->next = h->free;
	h->free = b;
	if (!orphaned(h))
		h->queued--;
	__atomic_fetch_add(&h->recycled, 1, __ATOMIC_RELEASE);
	rt_mutex_unlock(&h->lock);
	rt_futex_wake(&h->recycled, 1 << 30);
}

void handoff_finish(struct handoff *h)
{
	if (orphaned(h))
		return;
	rt_mutex_lock(&h->lock);
	h->ending = 1;
	__atomic_fetch_add(&h->handed, 1, __ATOMIC_RELEASE);
	rt_mutex_unlock(&h->lock);
	rt_futex_wake(&h->handed, 1);
	while (!__atomic_load_n(&h->done, __ATOMIC_ACQUIRE))
		rt_futex_wait(&h->done, 0);
}

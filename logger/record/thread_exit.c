/* A thread that exits while other threads go on. At its exit the kernel writes app memory:
 * it marks the robust futexes the thread still holds as owned by a dead thread and zeroes
 * its clear_child_tid word (pthread_join waits on it), waking their waiters. The recorder
 * does those writes itself, under the runtime lock, and tells the kernel there is nothing
 * left to do:
 * - inside a region, done by the kernel they would land at a moment no schedule records
 *   (another thread could read a word either side of them); done while the thread holds
 *   the baton, they are recorded as the exit's writes;
 * - outside a region, done by the kernel they could land after another thread started a
 *   region (a thread in a syscall counts as stopped): unrecorded in the pinball's memory,
 *   or lost on a page withheld for first-touch recording, where the kernel's write fails
 *   silently and pthread_join waits for ever.
 * App threads, TLS-free. */
#include <linux/futex.h>
#include <sys/syscall.h>
#include <sys/uio.h>

#include "first_touch.h"
#include "jit_messages.h"
#include "recorder_internal.h"
#include "rt_alloc.h"
#include "rt_syscall.h"

/* ROBUST_LIST_LIMIT bounds the walk, as in the kernel (a list may be corrupt or circular). */
enum { MAX_EXIT_WRITES = ROBUST_LIST_LIMIT + 2 };

struct exit_writes {
	size_t n;
	uint32_t tid;
	struct pinball_mem_write writes[MAX_EXIT_WRITES];
	uint32_t values[MAX_EXIT_WRITES];
};

/* Reads app memory the kernel would read, made accessible first in first-touch mode. */
static bool read_app(void *dst, uint64_t addr, size_t len)
{
	if (recording() && !rec.fat)
		first_touch_range(addr, len);
	return jit_read_app_memory(dst, addr, len);
}

static void write_word(struct exit_writes *w, uint64_t addr, uint32_t value)
{
	if (w->n == MAX_EXIT_WRITES)
		return;
	w->values[w->n] = value;
	struct iovec local = {&w->values[w->n], sizeof value},
		     remote = {(void *)addr, sizeof value};
	if (rt_syscall6(SYS_process_vm_writev, w->tid, (long)&local, 1, (long)&remote, 1, 0) !=
	    (long)sizeof value)
		return; /* the kernel would have failed too (unmapped, read-only) */
	w->writes[w->n] = (struct pinball_mem_write){addr, (const uint8_t *)&w->values[w->n], 4};
	w->n++;
}

static void wake_one(uint64_t addr)
{
	rt_syscall6(SYS_futex, (long)addr, FUTEX_WAKE, 1, 0, 0, 0);
}

/* One robust futex of the dying thread, as the kernel treats it. */
static void futex_death(struct exit_writes *w, uint64_t uaddr, bool pi, bool pending)
{
	uint32_t uval;
	if ((uaddr & 3) || !read_app(&uval, uaddr, sizeof uval))
		return;
	if (pending && !pi && !uval) {
		/* released, but a waiter may not have been woken yet */
		wake_one(uaddr);
		return;
	}
	if ((uval & FUTEX_TID_MASK) != w->tid)
		return;
	write_word(w, uaddr, (uval & FUTEX_WAITERS) | FUTEX_OWNER_DIED);
	if (!pi && (uval & FUTEX_WAITERS))
		wake_one(uaddr);
}

/* The list of robust futexes (struct robust_list_head: next, futex_offset,
 * list_op_pending; bit 0 of a pointer marks a PI futex). */
static void walk_robust_list(struct exit_writes *w, uint64_t head)
{
	uint64_t h[3];
	if (!head || !read_app(h, head, sizeof h))
		return;
	uint64_t entry = h[0] & ~1ull, pending = h[2] & ~1ull;
	bool pi = h[0] & 1, pending_pi = h[2] & 1;
	int64_t offset = (int64_t)h[1];
	for (int left = ROBUST_LIST_LIMIT; entry != head && left > 0; left--) {
		uint64_t next;
		bool readable = read_app(&next, entry, sizeof next);
		if (entry != pending)
			futex_death(w, entry + (uint64_t)offset, pi, false);
		if (!readable)
			return;
		entry = next & ~1ull;
		pi = next & 1;
	}
	if (pending)
		futex_death(w, pending + (uint64_t)offset, pending_pi, true);
}

void thread_exit_writes(struct jit_thread *t, const long args[6])
{
	struct exit_writes *w = rt_alloc(sizeof *w);
	if (!w)
		jit_fatal("out of memory at a thread's exit");
	w->n = 0;
	w->tid = (uint32_t)rt_gettid();
	struct exit_words *words = region_thread_exit_words(t);
	walk_robust_list(w, words->robust_list);
	rt_syscall2(SYS_set_robust_list, 0, sizeof(long) * 3);
	if (words->clear_tid) {
		rt_syscall1(SYS_set_tid_address, 0);
		if (recording() && !rec.fat)
			first_touch_range(words->clear_tid, sizeof(uint32_t));
		write_word(w, words->clear_tid, 0);
		rt_syscall6(SYS_futex, (long)words->clear_tid, FUTEX_WAKE, 1 << 30, 0, 0, 0);
	}
	if (region_thread_records(t))
		record_thread_exit(t, args, w->writes, w->n);
	rt_free(w);
	region_thread_exits(t);
}

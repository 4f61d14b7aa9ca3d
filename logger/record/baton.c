#include "baton.h"

#include <linux/futex.h>
#include <sys/syscall.h>

#include "rt_syscall.h"

/* Tickets: a waiter takes `next`; the holder's ticket is `serving`, the futex word the
 * waiters sleep on. `generation` changes whenever a region starts or ends, so that a
 * waiter of a region that is over never takes the baton of the next one. */
static struct {
	int serving;
	unsigned next;
	unsigned generation;
	bool enabled;
} b;

void baton_enable(void)
{
	__atomic_add_fetch(&b.generation, 1, __ATOMIC_SEQ_CST);
	unsigned mine = __atomic_fetch_add(&b.next, 1, __ATOMIC_SEQ_CST);
	__atomic_store_n(&b.serving, (int)mine, __ATOMIC_SEQ_CST);
	__atomic_store_n(&b.enabled, true, __ATOMIC_SEQ_CST);
}

void baton_disable(void)
{
	__atomic_store_n(&b.enabled, false, __ATOMIC_SEQ_CST);
	__atomic_add_fetch(&b.generation, 1, __ATOMIC_SEQ_CST);
	__atomic_add_fetch(&b.serving, 1, __ATOMIC_SEQ_CST);
	rt_futex_wake(&b.serving, 1 << 30);
}

/* Each waiter sleeps on the bit of its ticket, so that a release wakes the next waiter
 * only (and those 32 tickets further, which look and sleep again). */
static unsigned ticket_bit(int ticket)
{
	return 1u << ((unsigned)ticket & 31);
}

struct baton_ticket baton_take(void)
{
	struct baton_ticket t = {.generation = __atomic_load_n(&b.generation, __ATOMIC_SEQ_CST),
				 .valid = __atomic_load_n(&b.enabled, __ATOMIC_SEQ_CST)};
	if (t.valid)
		t.number = (int)__atomic_fetch_add(&b.next, 1, __ATOMIC_SEQ_CST);
	return t;
}

bool baton_wait(const struct baton_ticket *t)
{
	if (!t->valid)
		return false;
	for (;;) {
		int serving = __atomic_load_n(&b.serving, __ATOMIC_SEQ_CST);
		if (__atomic_load_n(&b.generation, __ATOMIC_SEQ_CST) != t->generation)
			return false;
		if (serving == t->number)
			return true;
		rt_syscall6(SYS_futex, (long)&b.serving, FUTEX_WAIT_BITSET_PRIVATE, serving, 0, 0,
			    ticket_bit(t->number));
	}
}

void baton_release(void)
{
	int serving = __atomic_add_fetch(&b.serving, 1, __ATOMIC_SEQ_CST);
	rt_syscall6(SYS_futex, (long)&b.serving, FUTEX_WAKE_BITSET_PRIVATE, 1 << 30, 0, 0,
		    ticket_bit(serving));
}

bool baton_wanted(void)
{
	return __atomic_load_n(&b.next, __ATOMIC_SEQ_CST) -
		   (unsigned)__atomic_load_n(&b.serving, __ATOMIC_SEQ_CST) >
	       1;
}

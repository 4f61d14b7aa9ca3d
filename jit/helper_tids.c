#include "helper_tids.h"

#include <errno.h>

#include "rt_syscall.h"

enum { MAX_HELPERS = 32 };
static int tids[MAX_HELPERS];
static int count;

void helper_tids_note_self(void)
{
	int slot = __atomic_fetch_add(&count, 1, __ATOMIC_ACQ_REL);
	if (slot < MAX_HELPERS)
		__atomic_store_n(&tids[slot], (int)rt_gettid(), __ATOMIC_RELEASE);
}

void helper_tids_forget_self(void)
{
	long tid = rt_gettid();
	for (int i = 0; i < MAX_HELPERS; i++)
		__atomic_compare_exchange_n(&tids[i], &(int){(int)tid}, 0, false, __ATOMIC_ACQ_REL,
					    __ATOMIC_ACQUIRE);
}

void helper_tids_forget(void)
{
	__atomic_store_n(&count, 0, __ATOMIC_RELEASE);
}

static int noted(void)
{
	int n = __atomic_load_n(&count, __ATOMIC_ACQUIRE);
	return n < MAX_HELPERS ? n : MAX_HELPERS;
}

bool helper_tids_has(long tid)
{
	for (int i = 0, n = noted(); i < n; i++)
		if (__atomic_load_n(&tids[i], __ATOMIC_ACQUIRE) == tid)
			return true;
	return false;
}

long helper_tids_live(void)
{
	long live = 0, pid = rt_getpid();
	for (int i = 0, n = noted(); i < n; i++) {
		int tid = __atomic_load_n(&tids[i], __ATOMIC_ACQUIRE);
		live += tid > 0 && rt_tgkill(pid, tid, 0) != -ESRCH;
	}
	return live;
}

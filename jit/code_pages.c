#include "code_pages.h"

#include <sys/mman.h>

#include "app_map.h"
#include "app_memory.h"
#include "flush.h"
#include "rt_syscall.h"
#include "runtime_lock.h"
#include "thread_block.h"
#include "threads.h"

enum { PAGE = 4096, SLOTS = 4096 };

/* Open addressing on page number + 1 (0: empty; 1: a removed entry). */
static uint64_t protected_pages[SLOTS];
static uint32_t count;

static uint64_t *slot_of(uint64_t page, bool for_insert)
{
	uint64_t key = page / PAGE + 2;
	uint64_t *tomb = NULL;
	for (uint32_t i = 0, h = (uint32_t)(key * 0x9e3779b9u) % SLOTS; i < SLOTS;
	     i++, h = (h + 1) % SLOTS) {
		if (protected_pages[h] == key)
			return &protected_pages[h];
		if (protected_pages[h] == 1 && !tomb)
			tomb = &protected_pages[h];
		if (protected_pages[h] == 0)
			return for_insert ? (tomb ? tomb : &protected_pages[h]) : NULL;
	}
	return for_insert ? tomb : NULL;
}

static bool is_protected(uint64_t page)
{
	return count && slot_of(page, false);
}

void code_pages_translated(uint64_t start, uint64_t end)
{
	for (uint64_t page = start & ~(uint64_t)(PAGE - 1); page < end; page += PAGE) {
		uint32_t prot;
		if (is_protected(page) || !app_map_prot_of(page, &prot) || !(prot & PROT_WRITE))
			continue;
		uint64_t *slot = slot_of(page, true);
		if (!slot || count >= SLOTS * 3 / 4)
			return; /* too many: such pages stay writable (their changes go unseen) */
		*slot = page / PAGE + 2;
		count++;
		rt_mprotect((void *)page, PAGE, app_prot(prot & ~PROT_WRITE));
	}
}

bool code_pages_may_change(uint64_t start, uint64_t end)
{
	for (uint64_t page = start & ~(uint64_t)(PAGE - 1); page < end; page += PAGE) {
		uint32_t prot;
		if (is_protected(page) || (app_map_prot_of(page, &prot) && (prot & PROT_WRITE)))
			return true;
	}
	return false;
}

/* The runtime lock, taken from a fault handler unless the thread holds it already: true
 * when it was taken here (to release with unlock_after_fault). */
static bool lock_for_fault(struct jit_thread **t)
{
	*t = thread_current();
	bool locked = !runtime_lock_held();
	if (locked)
		runtime_lock_from_handler(*t);
	return locked;
}

static void unlock_after_fault(struct jit_thread *t, bool locked)
{
	if (locked)
		runtime_unlock_from_handler(t);
}

/* Called from the dispatcher (lock held) and from the fault handler (not held). */
bool code_pages_write_fault(uint64_t addr)
{
	if (!__atomic_load_n(&count, __ATOMIC_RELAXED))
		return false;
	struct jit_thread *t;
	bool locked = lock_for_fault(&t);
	uint64_t page = addr & ~(uint64_t)(PAGE - 1);
	uint64_t *slot = slot_of(page, false);
	uint32_t prot;
	bool hit = slot && app_map_prot_of(page, &prot);
	if (hit) {
		*slot = 1;
		count--;
		jit_flush_cache();
		rt_mprotect((void *)page, PAGE, app_prot(prot));
	}
	unlock_after_fault(t, locked);
	return hit;
}

bool code_pages_allows(uint64_t addr, bool write)
{
	struct jit_thread *t;
	bool locked = lock_for_fault(&t);
	uint32_t prot;
	bool allowed = app_map_prot_of(addr, &prot) &&
		       (code_pages_real_prot(addr, prot) & (write ? PROT_WRITE : PROT_READ));
	unlock_after_fault(t, locked);
	return allowed;
}

/* Forgets the protected pages in [start, end), giving them the app's protection back first
 * when `restore`. */
static void drop_range(uint64_t start, uint64_t end, bool restore)
{
	for (uint32_t i = 0; i < SLOTS && count; i++) {
		uint64_t key = protected_pages[i];
		if (key < 2)
			continue;
		uint64_t page = (key - 2) * PAGE;
		if (page + PAGE <= start || page >= end)
			continue;
		protected_pages[i] = 1;
		count--;
		uint32_t prot;
		if (restore && app_map_prot_of(page, &prot))
			rt_mprotect((void *)page, PAGE, app_prot(prot));
	}
}

bool code_pages_release_all(void)
{
	if (!count)
		return false;
	drop_range(0, UINT64_MAX, true);
	jit_flush_cache();
	return true;
}

void code_pages_release(uint64_t start, uint64_t end)
{
	drop_range(start, end, true);
}

void code_pages_forget(uint64_t start, uint64_t end)
{
	drop_range(start, end, false);
}

uint32_t code_pages_real_prot(uint64_t addr, uint32_t prot)
{
	return is_protected(addr & ~(uint64_t)(PAGE - 1)) ? prot & ~(uint32_t)PROT_WRITE : prot;
}

#include "first_touch.h"

#include <signal.h>
#include <string.h>
#include <sys/mman.h>

#include "instrument.h"
#include "jit_app.h"
#include "jit_messages.h"
#include "record_queue.h"
#include "rt_alloc.h"
#include "rt_mutex.h"
#include "rt_syscall.h"

enum { PAGE = 4096 };

/* A readable mapping as it was at region start, or as an mmap in the region made it (then
 * at_mmap, with the mmap's thread and count); withheld[i] says whether page i still is. */
struct watched {
	uint64_t start, end;
	uint32_t prot;
	uint8_t *withheld;
	bool at_mmap;
	uint32_t mmap_tid;
	uint64_t mmap_icount;
};

static struct watched *ranges;
static size_t count, cap;
/* Threads meet here: the baton's holder faulting on a page while another thread's runtime
 * code (a syscall's return) reads it. */
static rt_mutex lock;

static void watch(const struct watched *how)
{
	if (count == cap) {
		size_t ncap = cap ? cap * 2 : 64;
		struct watched *n = rt_realloc(ranges, ncap * sizeof *n);
		if (!n)
			jit_fatal("out of memory while recording");
		ranges = n;
		cap = ncap;
	}
	size_t pages = (how->end - how->start) / PAGE;
	uint8_t *withheld = rt_alloc(pages);
	if (!withheld)
		jit_fatal("out of memory while recording");
	memset(withheld, 1, pages);
	ranges[count] = *how;
	ranges[count++].withheld = withheld;
	rt_mprotect((void *)how->start, how->end - how->start, PROT_NONE);
}

static int add_mapping(const struct jit_app_mapping *m, void *arg)
{
	(void)arg;
	if (m->prot & PROT_READ)
		watch(&(struct watched){.start = m->start, .end = m->end, .prot = m->prot});
	return 0;
}

void first_touch_begin(void)
{
	jit_app_map_foreach(add_mapping, NULL);
}

void first_touch_watch_mapping(uint64_t start, uint64_t end, uint32_t prot, uint32_t tid,
			       uint64_t icount)
{
	if (!(prot & PROT_READ) || end <= start)
		return;
	rt_mutex_lock(&lock);
	watch(&(struct watched){start, end, prot, NULL, true, tid, icount});
	rt_mutex_unlock(&lock);
}

/* The newest range holding addr: an older one there was forgotten (munmap, MAP_FIXED). */
static struct watched *find(uint64_t addr)
{
	for (size_t i = count; i-- > 0;)
		if (addr >= ranges[i].start && addr < ranges[i].end)
			return &ranges[i];
	return NULL;
}

/* The page's real protection back as the app has it (less what the runtime withholds). */
static void give_back(const struct watched *w, uint64_t page)
{
	rt_mprotect((void *)page, PAGE, jit_real_prot(page, w->prot));
}

bool first_touch_page(uint64_t addr)
{
	rt_mutex_lock(&lock);
	struct watched *w = find(addr);
	uint64_t page = addr & ~(uint64_t)(PAGE - 1);
	size_t i = w ? (page - w->start) / PAGE : 0;
	if (!w || !w->withheld[i]) {
		rt_mutex_unlock(&lock);
		return false;
	}
	give_back(w, page);
	struct record *r = record_new_page();
	/* (a page past the end of its file faults whoever reads it: the app's access will,
	 * and a replay's must, with SIGBUS) */
	int fault = jit_copy_app_memory(r->page, page, PAGE);
	r->u.page.addr = page;
	r->u.page.prot = w->prot;
	r->u.page.data = fault ? NULL : r->page;
	r->u.page.zero_pages = fault ? 1 : 0;
	r->u.page.past_end = fault == SIGBUS;
	r->u.page.at_mmap = w->at_mmap;
	r->u.page.mmap_tid = w->mmap_tid;
	r->u.page.mmap_icount = w->mmap_icount;
	if (fault && fault != SIGBUS) /* (unmapped meanwhile by another thread: nothing) */
		record_discard(r);
	else
		record_push(r);
	w->withheld[i] = 0; /* last: whoever sees it clear finds the page given back */
	rt_mutex_unlock(&lock);
	return true;
}

void first_touch_range(uint64_t addr, uint64_t len)
{
	if (!len)
		return;
	for (uint64_t page = addr & ~(uint64_t)(PAGE - 1); page < addr + len; page += PAGE)
		first_touch_page(page);
}

bool first_touch_all(void)
{
	bool any = false;
	for (size_t k = 0; k < count; k++) {
		struct watched *w = &ranges[k];
		for (uint64_t page = w->start; page < w->end; page += PAGE)
			any |= first_touch_page(page);
	}
	return any;
}

void first_touch_forget(uint64_t addr, uint64_t len)
{
	for (size_t k = 0; k < count; k++) {
		struct watched *w = &ranges[k];
		uint64_t lo = addr > w->start ? addr : w->start;
		uint64_t hi = addr + len < w->end ? addr + len : w->end;
		for (uint64_t page = lo & ~(uint64_t)(PAGE - 1); page < hi; page += PAGE)
			w->withheld[(page - w->start) / PAGE] = 0;
	}
}

void first_touch_end(void)
{
	for (size_t k = 0; k < count; k++) {
		struct watched *w = &ranges[k];
		size_t pages = (w->end - w->start) / PAGE;
		/* One mprotect per run of withheld pages that get the same protection back (a
		 * page holding translated code stays write-protected). */
		for (size_t i = 0; i < pages;) {
			if (!w->withheld[i]) {
				i++;
				continue;
			}
			uint64_t page = w->start + i * PAGE;
			uint32_t prot = jit_real_prot(page, w->prot);
			size_t j = i + 1;
			while (j < pages && w->withheld[j] &&
			       jit_real_prot(w->start + j * PAGE, w->prot) == prot)
				j++;
			rt_mprotect((void *)page, (j - i) * PAGE, (int)prot);
			i = j;
		}
		rt_free(w->withheld);
	}
	count = 0;
}

#include "app_memory.h"

#include <errno.h>
#include <sys/mman.h>
#include <sys/resource.h>

#include "app_map.h"
#include "block.h"
#include "code_pages.h"
#include "config.h"
#include "flush.h"
#include "fragment.h"
#include "rt_format.h"
#include "rt_syscall.h"
#include "translate.h"

enum { PAGE = 4096 };
#define BRK_RESERVE (1ull << 30)

static uint64_t brk_start, brk_cur, brk_mapped_end, brk_limit;

static uint64_t page_up(uint64_t a)
{
	return (a + PAGE - 1) & ~(uint64_t)(PAGE - 1);
}

long app_prot(long prot)
{
	if (prot & PROT_EXEC)
		prot |= PROT_READ;
	return jit_config.check_native_exec ? prot & ~PROT_EXEC : prot;
}

int app_brk_init(uint64_t near)
{
	uint64_t start = page_up(near);
	long r = rt_mmap((void *)start, BRK_RESERVE, PROT_NONE,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED_NOREPLACE, -1, 0);
	if (rt_is_error(r) || (uint64_t)r != start) {
		if (!rt_is_error(r))
			rt_munmap((void *)r, BRK_RESERVE);
		r = rt_mmap(NULL, BRK_RESERVE, PROT_NONE,
			    MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
		if (rt_is_error(r))
			return (int)r;
	}
	brk_start = brk_cur = brk_mapped_end = (uint64_t)r;
	brk_limit = brk_start + BRK_RESERVE;
	return 0;
}

const char *app_memory_limit_clause(void)
{
	static char clause[160];
	struct rlimit as;
	if (rt_syscall4(SYS_prlimit64, 0, RLIMIT_AS, 0, (long)&as) != 0 ||
	    as.rlim_cur == RLIM_INFINITY)
		return "";
	rt_format(clause, sizeof clause,
		  ": the address-space limit (ulimit -v) is %lu MiB, and the runtime reserves "
		  "about %lu MiB more than the app",
		  (unsigned long)(as.rlim_cur >> 20), (unsigned long)((BRK_RESERVE >> 20) + 64));
	return clause;
}

void jit_app_brk_state(uint64_t *start, uint64_t *current, uint64_t *mapped_end)
{
	*start = brk_start;
	*current = brk_cur;
	*mapped_end = brk_mapped_end;
}

uint64_t jit_app_brk_reserve_size(void)
{
	return BRK_RESERVE;
}

int jit_app_brk_adopt(uint64_t start, uint64_t current, uint64_t mapped_end)
{
	/* The caller claimed the reservation already (it is checked for collisions then). */
	uint64_t limit = start + BRK_RESERVE;
	long r = rt_mmap((void *)mapped_end, limit - mapped_end, PROT_NONE,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED, -1, 0);
	if (rt_is_error(r))
		return (int)r;
	brk_start = start;
	brk_cur = current;
	brk_mapped_end = mapped_end;
	brk_limit = limit;
	return 0;
}

static void flush_if_translated(uint64_t addr, uint64_t len)
{
	translate_forget_readable_range(addr, len);
	code_pages_forget(addr, addr + len);
	if (fragment_range_translated(addr, addr + len))
		jit_flush_cache();
}

/* Maps [from, to) inside the reservation with `prot`, fresh zeroed pages. */
static bool remap_brk(uint64_t from, uint64_t to, long prot)
{
	if (to <= from)
		return true;
	long flags = MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED | (prot ? 0 : MAP_NORESERVE);
	return !rt_is_error(rt_mmap((void *)from, to - from, prot, flags, -1, 0));
}

long app_brk(uint64_t addr)
{
	if (addr < brk_start || addr > brk_limit)
		return (long)brk_cur;
	uint64_t want = page_up(addr);
	if (want > brk_mapped_end) {
		if (!remap_brk(brk_mapped_end, want, PROT_READ | PROT_WRITE))
			return (long)brk_cur;
		app_map_add(brk_start, want, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, 0,
			    "[heap]");
	} else if (want < brk_mapped_end) {
		flush_if_translated(want, brk_mapped_end - want);
		remap_brk(want, brk_mapped_end, PROT_NONE);
		app_map_remove(want, brk_mapped_end);
	}
	brk_mapped_end = want;
	brk_cur = addr;
	return (long)brk_cur;
}

/* Records a new mapping; tells the clients when it is an executable file (a library). */
static void note_mapping(uint64_t start, uint64_t len, long prot, long flags, long fd,
			 uint64_t offset)
{
	char path[4096];
	bool file = !(flags & MAP_ANONYMOUS) && fd >= 0;
	if (file) {
		char link[64];
		rt_format(link, sizeof link, "/proc/self/fd/%ld", fd);
		long n = rt_syscall3(SYS_readlink, (long)link, (long)path, sizeof path - 1);
		file = n > 0;
		path[file ? n : 0] = '\0';
	}
	app_map_add(start, start + page_up(len), (uint32_t)prot, (uint32_t)flags, offset,
		    file ? path : NULL);
	if (file && (prot & PROT_EXEC))
		instrument_image_mapped(path, start, start + len, offset);
}

long app_mmap(const long a[6])
{
	if (a[3] & MAP_FIXED)
		flush_if_translated((uint64_t)a[0], (uint64_t)a[1]);
	long r = rt_syscall6(SYS_mmap, a[0], a[1], app_prot(a[2]), a[3], a[4], a[5]);
	if (!rt_is_error(r))
		note_mapping((uint64_t)r, (uint64_t)a[1], a[2], a[3], a[4], (uint64_t)a[5]);
	return r;
}

long app_munmap(uint64_t addr, uint64_t len)
{
	flush_if_translated(addr, len);
	long r = rt_syscall2(SYS_munmap, (long)addr, (long)len);
	if (r == 0)
		app_map_remove(addr, addr + page_up(len));
	return r;
}

long app_mprotect(uint64_t addr, uint64_t len, long prot)
{
	/* Code that becomes writable may change; code that stops being executable must
	 * stop running; where code becomes readable, a translation may stand for a fetch that
	 * failed (a fault for ever). Whichever, the range's translations go. */
	flush_if_translated(addr, len);
	long r = rt_syscall3(SYS_mprotect, (long)addr, (long)len, app_prot(prot));
	if (r == 0)
		app_map_protect(addr, addr + page_up(len), (uint32_t)prot);
	return r;
}

long app_mremap(const long a[6])
{
	/* The kernel moves the pages with their real protection, which the runtime would no
	 * longer know to give back (a write to moved code would fault for ever). */
	code_pages_release((uint64_t)a[0], (uint64_t)a[0] + page_up((uint64_t)a[1]));
	flush_if_translated((uint64_t)a[0], (uint64_t)a[1]);
	if (a[3] & MREMAP_FIXED)
		flush_if_translated((uint64_t)a[4], (uint64_t)a[2]);
	long r = rt_syscall6(SYS_mremap, a[0], a[1], a[2], a[3], a[4], a[5]);
	if (!rt_is_error(r))
		app_map_move((uint64_t)a[0], page_up((uint64_t)a[1]), (uint64_t)r,
			     page_up((uint64_t)a[2]));
	return r;
}

long jit_app_memory_syscall(long nr, const long a[6])
{
	switch (nr) {
	case SYS_brk:
		return app_brk((uint64_t)a[0]);
	case SYS_mmap:
		return app_mmap(a);
	case SYS_munmap:
		return app_munmap((uint64_t)a[0], (uint64_t)a[1]);
	case SYS_mprotect:
		return app_mprotect((uint64_t)a[0], (uint64_t)a[1], a[2]);
	case SYS_mremap:
		return app_mremap(a);
	default:
		return -ENOSYS;
	}
}

/* Where the runtime's own memory goes. A mapping whose address the runtime leaves to the
 * kernel is placed in a zone of the address space of its own instead: the kernel would put
 * it next to the app's mappings (top-down from below the stack), in holes the app leaves,
 * and directly below a thread stack the app just mapped. An app stack without a guard page
 * (or with an unmapped page below it) then overflowed into the runtime's thread block
 * instead of faulting as natively, and a recording and its replay (whose runtime memory
 * lies elsewhere) went different ways. The zone lies far below the kernel's choices for the
 * app and far above programs and their heaps; its addresses are handed out once, in
 * increasing order, lock-free (a vfork child shares the counter), and never reused (what
 * the runtime unmaps stays a hole of the zone: 32 TiB of address space). */
#include <errno.h>
#include <sys/mman.h>

#include "rt_syscall.h"

#define ZONE_START 0x200000000000ull
#define ZONE_END 0x400000000000ull

enum { PAGE = 4096, TRIES = 64 };

static uint64_t zone_next = ZONE_START;

static long raw_mmap(uint64_t addr, size_t len, int prot, int flags, int fd, off_t off)
{
	return rt_syscall6(SYS_mmap, (long)addr, (long)len, prot, flags, fd, off);
}

long rt_mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
	if (addr || (flags & (MAP_FIXED | MAP_FIXED_NOREPLACE)) || !len)
		return raw_mmap((uint64_t)addr, len, prot, flags, fd, off);
	uint64_t size = ((uint64_t)len + PAGE - 1) & ~(uint64_t)(PAGE - 1);
	/* Past something in the way, the step doubles: the replayer maps the recorded app's
	 * memory first, and the app's 1 GiB program break reservation lies at the zone's
	 * start (it was made here when recording); a step of the size took every allocation
	 * 64 failed attempts, about 900 for a replay of /bin/true. */
	uint64_t step = size;
	for (int i = 0; i < TRIES; i++, step *= 2) {
		uint64_t at = __atomic_fetch_add(&zone_next, step, __ATOMIC_RELAXED);
		if (step > ZONE_END - ZONE_START || at + size > ZONE_END || at < ZONE_START)
			break;
		long r = raw_mmap(at, len, prot, flags | MAP_FIXED_NOREPLACE, fd, off);
		if ((uint64_t)r == at)
			return r;
		if (!rt_is_error(r)) { /* a kernel without MAP_FIXED_NOREPLACE took it as a hint */
			rt_munmap((void *)r, len);
			break;
		}
		if (r != -EEXIST)
			return r;
		/* the app maps there: further on */
	}
	return raw_mmap(0, len, prot, flags, fd, off);
}

#include "threads.h"

#include <asm/prctl.h>
#include <errno.h>
#include <signal.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>

#include "cpu_id.h"
#include "instrument.h"
#include "rt_alloc.h"
#include "rt_syscall.h"
#include "seccomp.h"
#include "signals.h"
#include "table_jump.h"

#ifndef HWCAP2_FSGSBASE
#define HWCAP2_FSGSBASE (1 << 1)
#endif

enum { RT_STACK_SIZE = 1 << 20, MAX_THREADS = 1 << 16, MAX_VFORK_CHILDREN = 64 };

extern void jit_dispatch_entry(void);
extern void jit_ibl_miss(void);

static int use_fsgsbase;
static size_t xsave_size;
/* Where each user state component XCR0 enables ends in the standard layout (0: not
 * enabled), for the part of the area a signal frame holds. */
static uint32_t component_end[64];
static int use_xsaveopt;
static struct jit_thread *threads[MAX_THREADS];
static size_t live; /* started and not exited */
static size_t thread_total;
static struct jit_thread *vfork_children[MAX_VFORK_CHILDREN];
static uint32_t next_number = UINT32_MAX; /* jit_number_next_thread; UINT32_MAX: none */

long thread_current_os_tid(void)
{
	if (use_fsgsbase) {
		uint64_t gs;
		__asm__ volatile("rdgsbase %0" : "=r"(gs));
		if (gs)
			return ((const struct jit_thread *)gs)->os_tid;
	}
	return rt_gettid();
}

static uint64_t read_xcr0(void)
{
	uint32_t lo, hi;
	__asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
	return (uint64_t)hi << 32 | lo;
}

int threads_init(uint64_t hwcap2, const char **why)
{
	use_fsgsbase = (hwcap2 & HWCAP2_FSGSBASE) != 0;
	uint32_t r[4]; /* eax, ebx, ecx, edx */
	if (!cpu_id_leaf(0xd, 0, r) || r[1] > TB_XSAVE_SIZE) {
		*why = "the CPU's xsave area is larger than the runtime supports";
		return 0;
	}
	xsave_size = r[1];
	use_xsaveopt = cpu_id_leaf(0xd, 1, r) && (r[0] & 1);
	uint64_t xcr0 = read_xcr0();
	for (unsigned i = 2; i < 64; i++)
		if ((xcr0 >> i) & 1 && cpu_id_leaf(0xd, i, r))
			component_end[i] = r[1] + r[0];
	return 1;
}

size_t threads_frame_xsave_size(uint64_t *features)
{
	enum { LEGACY_AND_HEADER = 576 };
	uint64_t permitted = ~0ull; /* kernels before ARCH_GET_XCOMP_PERM have no such limit */
	rt_syscall2(SYS_arch_prctl, ARCH_GET_XCOMP_PERM, (long)&permitted);
	*features = read_xcr0() & permitted;
	size_t size = LEGACY_AND_HEADER;
	for (unsigned i = 2; i < 64; i++)
		if ((*features >> i) & 1 && component_end[i] > size)
			size = component_end[i];
	return size < xsave_size ? size : xsave_size;
}

static void *map_rw(size_t len)
{
	long r = rt_mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	return rt_is_error(r) ? NULL : (void *)r;
}

/* A valid xsave image in its initial state: every component in its initial state, with the
 * control words the kernel gives a new process (x87 0x37f, MXCSR 0x1f80). */
void threads_init_xsave(uint8_t *area)
{
	memset(area, 0, TB_XSAVE_SIZE);
	uint16_t fcw = 0x37f;
	uint32_t mxcsr = 0x1f80;
	memcpy(area + 0, &fcw, sizeof fcw);
	memcpy(area + 24, &mxcsr, sizeof mxcsr);
}

/* Deferred freeing: once the kernel thread of an exited app thread is gone, its runtime
 * stack, signal stack, extended state and lookup table are unmapped; the first page of its
 * block stays (its identity and counters are still reported at exit). */
static void reclaim_exited(void)
{
	long pid = rt_getpid();
	for (size_t i = 0; i < thread_total; i++) {
		struct jit_thread *t = threads[i];
		if (!t->exited || t->reclaimed || t->os_tid <= 0 ||
		    rt_tgkill(pid, t->os_tid, 0) != -ESRCH)
			continue;
		__atomic_store_n(&t->reclaimed, 1, __ATOMIC_RELEASE);
		rt_munmap(t->rt_stack_base, RT_STACK_SIZE);
		rt_munmap((char *)t + TB_KEPT_AFTER_EXIT, TB_MAPPING_SIZE - TB_KEPT_AFTER_EXIT);
		signals_release_thread(t);
		seccomp_release_thread(t);
	}
}

/* A thread block with its runtime stack and lookup table, in no registry. */
static struct jit_thread *block_new(void)
{
	/* Faulted in at once up to its lookup table's end (the block fills that table): one
	 * system call, not a fault per page. The table jumps' tables after it are written
	 * when their app tables are met: most never are. */
	struct jit_thread *t = map_rw(TB_MAPPING_SIZE);
	if (t)
		rt_populate_write(t, TB_TABLE_JUMPS);
	void *stack = map_rw(RT_STACK_SIZE);
	if (!t || !stack) {
		if (t)
			rt_munmap(t, TB_MAPPING_SIZE);
		if (stack)
			rt_munmap(stack, RT_STACK_SIZE);
		return NULL;
	}
	t->self = (uint64_t)t;
	t->tcb_unused[1] = (uint64_t)t; /* glibc's header.self at 0x10 */
	/* Any fixed canary works: runtime code only compares it with itself. */
	t->stack_guard = 0x5c0ffee5dead0000ull ^ (uint64_t)t;
	t->pointer_guard = 0;
	t->rt_stack_base = stack;
	t->rt_stack_top = (uint64_t)stack + RT_STACK_SIZE;
	t->enter_dispatch = (uint64_t)jit_dispatch_entry;
	t->ibl_miss = (uint64_t)jit_ibl_miss;
	t->ibl_dirty = true; /* (zeros, not the miss) */
	thread_clear_ibl(t);
	t->use_fsgsbase = use_fsgsbase;
	t->use_xsaveopt = use_xsaveopt;
	t->os_tid = (int32_t)rt_gettid();
	t->syscall_in_progress = -1;
	threads_init_xsave(t->xsave_area);
	return t;
}

struct jit_thread *thread_create(void)
{
	reclaim_exited();
	if (thread_total == MAX_THREADS)
		return NULL;
	struct jit_thread *t = block_new();
	if (!t)
		return NULL;
	t->tid = next_number != UINT32_MAX ? next_number : (uint32_t)thread_total;
	next_number = UINT32_MAX;
	threads[thread_total] = t;
	__atomic_store_n(&thread_total, thread_total + 1, __ATOMIC_RELEASE);
	__atomic_add_fetch(&live, 1, __ATOMIC_ACQ_REL);
	return t;
}

void jit_number_next_thread(uint32_t number)
{
	next_number = number;
}

bool thread_process_ended(const struct jit_thread *t)
{
	if (rt_syscall2(SYS_kill, t->os_tid, 0) == -ESRCH)
		return true;
	siginfo_t info = {0};
	return rt_syscall6(SYS_waitid, P_PID, t->os_tid, (long)&info,
			   WEXITED | WNOHANG | WNOWAIT | __WALL, 0, 0) == 0 &&
	       info.si_pid == t->os_tid;
}

/* vfork children are kept apart from the threads: they take no thread number, do not count
 * as live threads of the process and are never reported; only stopping the world and
 * flushing must see them, since they run code from the shared cache. Changed and walked
 * under the runtime lock. */
struct jit_thread *thread_create_vfork_child(const struct jit_thread *parent)
{
	for (size_t i = 0; i < MAX_VFORK_CHILDREN; i++) {
		struct jit_thread *old = vfork_children[i];
		if (old && old->parent_goes_on && thread_process_ended(old))
			thread_release_vfork_child(old);
		if (vfork_children[i])
			continue;
		struct jit_thread *t = block_new();
		if (!t)
			return NULL;
		t->vfork_child = 1;
		t->tid = parent->tid; /* what jit_thread_id says in a callout it runs */
		__atomic_store_n(&vfork_children[i], t, __ATOMIC_RELEASE);
		return t;
	}
	return NULL;
}

void thread_release_vfork_child(struct jit_thread *t)
{
	for (size_t i = 0; i < MAX_VFORK_CHILDREN; i++)
		if (vfork_children[i] == t)
			__atomic_store_n(&vfork_children[i], NULL, __ATOMIC_RELEASE);
	rt_free(t->exec_argv); /* its execve succeeded: the arguments stayed in our heap */
	signals_release_thread(t);
	seccomp_release_thread(t);
	rt_munmap(t->rt_stack_base, RT_STACK_SIZE);
	rt_munmap(t, TB_MAPPING_SIZE);
}

size_t threads_vfork_slots(void)
{
	return MAX_VFORK_CHILDREN;
}

struct jit_thread *threads_vfork_child_at(size_t slot)
{
	return slot < MAX_VFORK_CHILDREN ? __atomic_load_n(&vfork_children[slot], __ATOMIC_ACQUIRE)
					 : NULL;
}

int thread_install_gs(struct jit_thread *t)
{
	if (use_fsgsbase) {
		__asm__ volatile("wrgsbase %0" ::"r"(t) : "memory");
		return 0;
	}
	return (int)rt_syscall2(SYS_arch_prctl, ARCH_SET_GS, (long)t);
}

void thread_install_runtime_fs(struct jit_thread *t)
{
	if (use_fsgsbase)
		__asm__ volatile("wrfsbase %0" ::"r"(t) : "memory");
	else
		rt_syscall2(SYS_arch_prctl, ARCH_SET_FS, (long)t);
}

static uint64_t *ibl_table(struct jit_thread *t)
{
	return (uint64_t *)((char *)t + TB_IBL_TABLE);
}

void thread_clear_ibl(struct jit_thread *t)
{
	if (__atomic_load_n(&t->reclaimed, __ATOMIC_ACQUIRE) || !t->ibl_dirty)
		return; /* its table is gone with the thread, or clear: 512 KiB not written again */
	uint64_t *table = ibl_table(t);
	for (size_t i = 0; i < IBL_ENTRIES; i++)
		table[i] = (uint64_t)jit_ibl_miss;
	table_jumps_clear(t);
	t->ibl_dirty = false;
}

void thread_ibl_install(struct jit_thread *t, uint64_t app_pc, const uint8_t *entry)
{
	ibl_table(t)[app_pc & (IBL_ENTRIES - 1)] = (uint64_t)entry;
	t->ibl_dirty = true;
}

const uint8_t *thread_ibl_entry(struct jit_thread *t, uint64_t app_pc)
{
	uint64_t entry = ibl_table(t)[app_pc & (IBL_ENTRIES - 1)];
	return entry == (uint64_t)jit_ibl_miss ? NULL : (const uint8_t *)entry;
}

size_t threads_xsave_size(void)
{
	return xsave_size;
}

size_t threads_live(void)
{
	return __atomic_load_n(&live, __ATOMIC_ACQUIRE);
}
static size_t safe_points_wanted;

void thread_want_safe_point(struct jit_thread *t)
{
	if (t->safe_point_pending)
		return;
	t->safe_point_pending = true;
	__atomic_add_fetch(&safe_points_wanted, 1, __ATOMIC_ACQ_REL);
}

bool thread_take_safe_point(struct jit_thread *t)
{
	if (!t->safe_point_pending)
		return false;
	t->safe_point_pending = false;
	__atomic_sub_fetch(&safe_points_wanted, 1, __ATOMIC_ACQ_REL);
	return true;
}

bool threads_may_link(void)
{
	return __atomic_load_n(&safe_points_wanted, __ATOMIC_ACQUIRE) == 0;
}

void threads_exiting(struct jit_thread *t)
{
	thread_take_safe_point(t);
	__atomic_store_n(&t->exited, 1, __ATOMIC_RELEASE);
	__atomic_sub_fetch(&live, 1, __ATOMIC_ACQ_REL);
}

void threads_after_fork(struct jit_thread *self)
{
	for (size_t i = 0; i < thread_total; i++)
		if (threads[i] != self && !threads[i]->exited && !threads[i]->park.frozen)
			threads_exiting(threads[i]);
	for (size_t i = 0; i < MAX_VFORK_CHILDREN; i++)
		vfork_children[i] = NULL;
}

size_t threads_count(void)
{
	return thread_total;
}
struct jit_thread *threads_at(size_t index)
{
	return index < thread_total ? threads[index] : NULL;
}

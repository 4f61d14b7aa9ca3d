/* Runtime thread blocks: creation, the %gs/%fs plumbing, and the registry of live threads. */
#ifndef JIT_THREADS_H
#define JIT_THREADS_H

#include <stddef.h>
#include <stdint.h>

#include "thread_block.h"

/* Probes the CPU once (FSGSBASE from the kernel's AT_HWCAP2, xsave size); 0 with a reason
 * when it cannot host the runtime. */
int threads_init(uint64_t hwcap2, const char **why);

/* Bytes of the CPU's xsave area (standard layout, all enabled components). */
size_t threads_xsave_size(void);

/* Bytes of it a signal frame holds, as the kernel builds frames for this process now, and
 * the components they are (*features): those XCR0 enables that the process may use.
 * Fewer than threads_xsave_size where a component is off until asked for (AMX's tile
 * data, ARCH_REQ_XCOMP_PERM): an app's 8 KiB alternate stack holds the kernel's frame
 * there, not one with the whole area. */
size_t threads_frame_xsave_size(uint64_t *features);

/* Resets an xsave area to the state a new process (or a signal handler) starts with. */
void threads_init_xsave(uint8_t *area);

/* A new thread block with its runtime stack and indirect-branch table. NULL on failure. */
struct jit_thread *thread_create(void);

/* A thread block for a clone(CLONE_VM|CLONE_VFORK) child of parent, which is no thread of
 * this process: no thread number of its own, not among threads_count/threads_live. NULL
 * when none is free. Released (with the arguments of its execve) by the parent once the
 * child exec'd or exited, or once its process ended when its parent went on. */
struct jit_thread *thread_create_vfork_child(const struct jit_thread *parent);
void thread_release_vfork_child(struct jit_thread *t);
/* Whether the process of vfork child t (one whose parent goes on) has ended: gone, or a
 * zombie waiting for its parent. */
bool thread_process_ended(const struct jit_thread *t);
/* The vfork children running in this address space: slots, NULL when free. */
size_t threads_vfork_slots(void);
struct jit_thread *threads_vfork_child_at(size_t slot);

/* Points %gs at t for the calling thread. */
int thread_install_gs(struct jit_thread *t);
/* Points %fs at t, the TCB runtime code expects (Zydis reads its stack canary at
 * %fs:0x28), from a signal handler that goes on into runtime code where %fs was the
 * app's (saved in t->app_fs, which jit_resume_cache restores). */
void thread_install_runtime_fs(struct jit_thread *t);

/* The calling thread's kernel id: an app thread's, kept in its block, is read through
 * %gs without a syscall where the CPU lets user code read the %gs base (a gettid costs
 * about 0.2 us in a VM, and the runtime's lock asks at every entry); the driver's helper
 * threads, which have no block, ask the kernel. */
long thread_current_os_tid(void);

/* The calling thread's block (its %gs), from runtime code running on an app thread. */
static inline struct jit_thread *thread_current(void)
{
	struct jit_thread *t;
	__asm__ volatile("mov %%gs:0, %0" : "=r"(t));
	return t;
}

/* Clears t's indirect-branch table (after a flush). */
void thread_clear_ibl(struct jit_thread *t);
/* Points t's indirect-branch table slot for app_pc at a fragment's indirect entry. */
void thread_ibl_install(struct jit_thread *t, uint64_t app_pc, const uint8_t *entry);
/* The indirect entry t's table slot for app_pc points at (NULL: none). */
const uint8_t *thread_ibl_entry(struct jit_thread *t, uint64_t app_pc);

/* Safe points (jit_request_safe_point): t is asked to stop at its block's end. While any
 * thread is asked, no branch is linked, so that it leaves the cache there even through
 * blocks other threads translate and run meanwhile (the request unlinked all the others). */
void thread_want_safe_point(struct jit_thread *t);
/* Whether t was asked; it no longer is. */
bool thread_take_safe_point(struct jit_thread *t);
bool threads_may_link(void);

/* Threads started and not exited; threads_exiting takes one out (its block stays). */
size_t threads_live(void);
void threads_exiting(struct jit_thread *t);

/* clone(2) of a kernel thread that runs as t, on `stack`, from start(t), which never
 * returns (context_switch.S). */
long jit_clone_onto(unsigned long flags, struct jit_thread *t, int *ptid, int *ctid, uint64_t stack,
		    void (*start)(struct jit_thread *t));

/* In a forked child: the other threads of the parent do not exist here (a stop of the
 * world must not wait for them, and the child is one live thread), frozen ones apart
 * (park.h). */
void threads_after_fork(struct jit_thread *self);

size_t threads_count(void);
struct jit_thread *threads_at(size_t index);

#endif

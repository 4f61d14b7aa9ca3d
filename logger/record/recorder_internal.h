/* Inside the recorder: the region's state, shared by its files. App threads, TLS-free. */
#ifndef LOGGER_RECORDER_INTERNAL_H
#define LOGGER_RECORDER_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include "control_engine.h"
#include "instrument.h"
#include "record_queue.h"

/* OUT -> TO_IN -> IN -> TO_OUT -> OUT: the seed's global region and its transitions. */
enum region_state { OUT, TO_IN, IN, TO_OUT };

enum { PAGE = 4096 };

struct recorder_state {
	const char *basename;
	bool fat;
	uint64_t slice; /* instructions a thread runs before it passes the baton on */
	enum region_state state;
	/* a forked child (it does not write its parent's pinballs), or a process whose pinball
	 * could not be written: no region any more */
	bool disabled;
	uint32_t region;	    /* index of the current or next region */
	uint64_t ignored_events;    /* in the current region */
	struct pinball_cause cause; /* what asked for the pending transition */
	char cause_text[256];
	char path[4096];
	bool unmodelled_seen[512]; /* syscalls warned about */
	control_handler region_observer;
};
extern struct recorder_state rec;

/* Whether a region is on: a transition to OUT still finishes its block in it, and a thread
 * that reaches its start safe point meanwhile takes part (it must not run beside it). */
static inline bool region_on(void)
{
	return rec.state == IN || rec.state == TO_OUT;
}

/* Whether the region records now. */
static inline bool recording(void)
{
	return region_on() && !rec.disabled;
}

/* record_events.c: what a region records of each thread's system calls and signals. */
void record_syscall(struct jit_thread *t, long nr, const long args[6], long result);
/* A copy inside the kernel to the logger's stdout or stderr, made by the recorder itself to
 * keep its bytes; false when nr is no such copy. */
bool record_echoed_copy(struct jit_thread *t, long nr, const long args[6]);
/* A syscall whose effects cannot be recorded fails with ENOSYS, recorded. */
void record_refused(struct jit_thread *t, long nr, const long args[6]);
/* The thread's exit (SYS_exit) with the words the recorder wrote for the kernel. */
void record_thread_exit(struct jit_thread *t, const long args[6],
			const struct pinball_mem_write *writes, size_t nwrites);
void record_thread_create(struct jit_thread *parent, uint32_t child_tid, uint64_t flags);
/* Prepares the memory the kernel will use for nr (first-touch: the pages it needs). */
void prepare_memory(long nr, const long args[6]);

/* region_threads.c: the threads of a region, their start and end states, the baton. */
void region_threads_setup(void);
/* The watchdog's question (recorder_watch), under the runtime's lock. */
struct jit_thread *region_threads_watch(void);
/* t is made by a clone; it will start at pc. */
void region_thread_new(struct jit_thread *t, uint64_t pc);
/* The stopper, world stopped: the region begins or ends with every thread (at the
 * stopper's absolute instruction count; at an end, inside syscall nr when nr >= 0). */
void region_threads_begin(struct jit_thread *self, uint64_t icount);
void region_threads_end(struct jit_thread *self, uint64_t icount, long nr);
/* Whether t was made by a clone inside the current region (else it was there at its
 * start, perhaps made by a clone that the region's start caught in the kernel). */
bool region_thread_born(const struct jit_thread *t);
/* Whether what t does is the region's: it records, its start state is in the pinball and
 * its end state is not yet. Not so for a thread that the region's start asked to stop at
 * its next safe point when the region ends before it got there (the region's end is under
 * way, and the thread runs outside it). */
bool region_thread_records(const struct jit_thread *t);
/* Whether t holds the baton of the current region (it may run app code). */
bool region_thread_holds_baton(const struct jit_thread *t);
/* The thread's region-relative instruction count. */
uint64_t region_icount(const struct jit_thread *t);
uint64_t region_callout_icount(const struct jit_callout *c);
/* Hooks: a thread at a safe point, before and after a syscall, exiting. */
void region_thread_safe_point(struct jit_thread *t, uint64_t icount);
void region_thread_syscall_enter(struct jit_thread *t);
/* After the syscall, before its event is recorded: true when the thread's region starts
 * here (its return is its first event). */
bool region_thread_syscall_return(struct jit_thread *t, long nr);
/* After the syscall's event: the thread waits for the baton. */
void region_thread_resume(struct jit_thread *t, long result);
void region_thread_exits(struct jit_thread *t);
/* The time-slice checks, while the region records (where code can loop). */
void region_instrument_block(struct jit_block *b);
/* Whether region_instrument_block inserts slice checks (threads share the time). */
bool region_slices_checked(void);
/* What the kernel does to app memory at a thread's exit, as the app set it up. */
struct exit_words {
	uint64_t clear_tid;   /* zeroed, its waiters woken (clone, set_tid_address) */
	uint64_t robust_list; /* robust futexes the thread holds (set_robust_list) */
};
/* NULL for a thread the recorder does not know (a vfork child). */
struct exit_words *region_thread_exit_words(const struct jit_thread *t);

/* thread_exit.c: a thread leaves by SYS_exit while other threads go on: the kernel's exit
 * writes done (and recorded, in a region) before the call. */
void thread_exit_writes(struct jit_thread *t, const long args[6]);

#endif

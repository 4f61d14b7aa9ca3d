/* The app's seccomp filters and strict mode, run by the runtime on the app's syscalls and
 * never on the runtime's own. Installed in the kernel, a filter would judge the runtime's
 * calls too (the translator's mmap and mprotect, futexes, signal masks, a pinball's writes),
 * and a filter made for the app would fail or kill those.
 *
 * As in the kernel, filters belong to a thread: a new thread starts with its creator's
 * (TSYNC gives the caller's to every thread), a fork's child keeps them (it is a copy of
 * our memory), a followed execve hands them to the next image of the runtime
 * (seccomp_exec_handoff), and a native one gives them to the kernel just before the exec
 * (seccomp_give_to_kernel). Every function runs under the runtime lock. */
#ifndef JIT_SECCOMP_H
#define JIT_SECCOMP_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>

#include "thread_block.h"

/* seccomp(SECCOMP_SET_MODE_STRICT or SECCOMP_SET_MODE_FILTER, flags, args) on thread t, and
 * prctl(PR_SET_SECCOMP, mode, filter): the syscall's result. */
long seccomp_set_mode(struct jit_thread *t, unsigned long op, unsigned long flags, uint64_t args);
/* prctl(PR_GET_SECCOMP): 0, SECCOMP_MODE_STRICT or SECCOMP_MODE_FILTER. */
long seccomp_mode(const struct jit_thread *t);
/* The filters t runs under (its chain's length). */
long seccomp_filter_count(const struct jit_thread *t);

enum seccomp_outcome {
	SECCOMP_RUNS,	       /* allowed (or logged): the syscall runs */
	SECCOMP_FAILS,	       /* it returns `result` without running */
	SECCOMP_TRAPS,	       /* it returns `result` (rax as it was) and `info` is forced */
	SECCOMP_KILLS_THREAD,  /* the thread dies of `sig` (the process, if it is the last) */
	SECCOMP_KILLS_PROCESS, /* the process dies of `sig` */
};

struct seccomp_verdict {
	enum seccomp_outcome outcome;
	long result;
	int sig;
	siginfo_t info;
};

/* What t's filters, or strict mode, make of the syscall it is about to make, before
 * anything else of it happens (as in the kernel): rax the number register as the app set
 * it, args its argument registers, ip the address after the syscall instruction, arch
 * AUDIT_ARCH_X86_64, or AUDIT_ARCH_I386 for int $0x80 (rax then holds an i386 number). */
struct seccomp_verdict seccomp_judge(const struct jit_thread *t, uint32_t arch, uint64_t rax,
				     const uint64_t args[6], uint64_t ip);

/* A new thread (or vfork child) of parent's starts under its filters and mode. */
void seccomp_inherit(struct jit_thread *child, const struct jit_thread *parent);
/* t's block goes: its hold on its filters too. */
void seccomp_release_thread(struct jit_thread *t);

/* A followed execve of t: a descriptor (no close-on-exec) holding its filters for the next
 * image (seccomp_adopt), 0 when it has none, -errno when it cannot be made. Closed by
 * seccomp_exec_failed when the exec fails. */
int seccomp_exec_handoff(const struct jit_thread *t);
void seccomp_exec_failed(int fd);
/* The first thread of a followed image takes the filters in fd (seccomp_exec_handoff's)
 * and closes it: false, with *why, when they cannot be read (the run must not go on
 * without them). */
bool seccomp_adopt(struct jit_thread *t, int fd, const char **why);

/* A native execve of t is about to run, with the runtime's lock released meanwhile (another
 * thread's TSYNC may replace t's filters then): its filters, held under the lock, go to the
 * kernel without it, which keeps them for the next program (from here on they also judge
 * the runtime's calls: the exec must be its last); after a failed exec, under the lock,
 * the hold is let go. */
struct seccomp_filter *seccomp_hold_for_exec(const struct jit_thread *t);
void seccomp_give_to_kernel(const struct seccomp_filter *chain);
void seccomp_let_go(struct seccomp_filter *chain);

#endif

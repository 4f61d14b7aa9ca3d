#include "forked_code.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stddef.h>

#include "block.h"
#include "config.h"
#include "dispatcher.h"
#include "fragment.h"
#include "jit.h"
#include "messages.h"
#include "rt_alloc.h"
#include "rt_syscall.h"
#include "runtime_fds.h"
#include "threads.h"
#include "translate.h"

/* A told pc that an indirect branch reached (app pcs are below 2^47). */
#define INDIRECT (1ull << 63)

enum {
	/* A write of at most PIPE_BUF bytes to a pipe is never split: siblings telling at
	 * once interleave whole messages, each a whole number of pcs. */
	MESSAGE_BYTES = 4096,
	MESSAGE_PCS = MESSAGE_BYTES / sizeof(uint64_t),
	/* Half a pipe's default capacity. A child that translates more runs long (a worker),
	 * and its first blocks are those its siblings share; the parent translates at most
	 * this many ahead of a fork. */
	MAX_NOTED = 4096,
};

/* This process's pipe: its children write, it reads (both made at its first fork). */
static int learn_read = -1, learn_write = -1;
/* In a child: its parent's write end, and the child's pid (a vfork child of it runs in
 * its memory, and its exit must not tell for it). */
static int tell = -1;
static long teller;
static bool noting;
static uint64_t *noted;
static size_t noted_count, noted_cap;
static uint64_t ahead;

/* Both ends out of the app's reach (runtime_fds.h), or none: with the runtime's window
 * full they would stay among the app's descriptors. */
static void make_pipe(void)
{
	int fds[2];
	if (rt_syscall2(SYS_pipe2, (long)fds, O_CLOEXEC | O_NONBLOCK) != 0)
		return;
	int r = jit_runtime_fd(fds[0]), w = jit_runtime_fd(fds[1]);
	if (runtime_fds_owns(r) && runtime_fds_owns(w)) {
		learn_read = r;
		learn_write = w;
		return;
	}
	jit_runtime_fd_close(r);
	jit_runtime_fd_close(w);
}

/* Translated and linked among themselves and to what the cache has, as the children ran
 * them: each child would otherwise link them again, in its copy (a page copied for each).
 * After a flush (the cache was full) the parent stops: what it made is gone. */
static void translate_told(const uint64_t *pcs, size_t n, uint64_t generation)
{
	struct fragment *made[MESSAGE_PCS];
	size_t count = 0;
	for (size_t i = 0; i < n && fragment_generation() == generation; i++) {
		uint64_t pc = pcs[i] & ~INDIRECT;
		struct fragment *f = fragment_lookup(pc);
		if (!f && (f = made[count] = translate_block_ahead(pc)))
			count++;
		if (f && (pcs[i] & INDIRECT))
			dispatch_install_indirect(thread_current(), pc, f);
	}
	for (size_t i = 0; i < count && fragment_generation() == generation; i++)
		dispatch_link_present(made[i]);
	ahead += count;
}

void forked_code_before_fork(void)
{
	if (!instrument_may_keep())
		return;
	if (learn_read < 0) {
		make_pipe();
		return;
	}
	uint64_t generation = fragment_generation();
	uint64_t pcs[MESSAGE_PCS];
	for (;;) {
		long n = rt_read(learn_read, pcs, sizeof pcs);
		if (n == -EINTR)
			continue;
		if (n <= 0 || n % sizeof(uint64_t)) /* (whole pcs only: see MESSAGE_BYTES) */
			return;
		translate_told(pcs, (size_t)n / sizeof(uint64_t), generation);
	}
}

void forked_code_in_child(void)
{
	if (learn_read >= 0)
		jit_runtime_fd_close(learn_read);
	tell = learn_write;
	learn_read = learn_write = -1;
	noting = tell >= 0;
	teller = rt_getpid();
	noted_count = 0; /* (the array, a copy of the parent's, is this process's own now) */
	ahead = 0;
}

void forked_code_note(uint64_t app_pc)
{
	if (!noting || noted_count == MAX_NOTED)
		return;
	if (noted_count == noted_cap) {
		size_t cap = noted_cap ? noted_cap * 2 : 256;
		uint64_t *grown = rt_realloc(noted, cap * sizeof *grown);
		if (!grown)
			return;
		noted = grown;
		noted_cap = cap;
	}
	noted[noted_count++] = app_pc;
}

void forked_code_note_indirect(uint64_t app_pc)
{
	forked_code_note(app_pc | INDIRECT);
}

void forked_code_forget(void)
{
	noting = false;
	noted_count = 0;
}

void forked_code_report(void)
{
	if (!noting || rt_getpid() != teller)
		return;
	if (jit_config.stats) {
		size_t translated = 0, missed = 0;
		for (size_t i = 0; i < noted_count; i++) {
			if (noted[i] & INDIRECT)
				missed++;
			else
				translated++;
		}
		jit_message("jit stats: forked child translated %lu blocks, missed %lu indirect "
			    "targets",
			    (unsigned long)translated, (unsigned long)missed);
	}
	for (size_t done = 0; done < noted_count;) {
		size_t n = noted_count - done < MESSAGE_PCS ? noted_count - done : MESSAGE_PCS;
		if (rt_write(tell, noted + done, n * sizeof *noted) != (long)(n * sizeof *noted))
			break; /* (full: the parent is behind; what is left is not needed) */
		done += n;
	}
	noted_count = 0; /* (an execve that fails goes on: what it translates next is new) */
}

uint64_t forked_code_translated_ahead(void)
{
	return ahead;
}

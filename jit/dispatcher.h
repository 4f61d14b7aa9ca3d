/* Leaving the cache: jit_dispatch decides where a thread goes next. */
#ifndef JIT_DISPATCHER_H
#define JIT_DISPATCHER_H

#include <stdint.h>

#include "fragment.h"
#include "thread_block.h"

/* Called from context_switch.S only. Sets t->jump_target. */
void jit_dispatch(struct jit_thread *t, struct jit_exit *rec);

/* The fragment for app_pc, translating it if needed (fatal when memory runs out). */
struct fragment *dispatch_find_fragment(uint64_t app_pc);

/* Links f's direct exits to the fragments their targets already have, as running them
 * would (for code translated ahead of its first run). */
void dispatch_link_present(const struct fragment *f);

/* Enters f in t's table of indirect-branch targets for target, as a miss there does. */
void dispatch_install_indirect(struct jit_thread *t, uint64_t target, struct fragment *f);

struct dispatch_stats {
	uint64_t indirect_misses;
};
extern struct dispatch_stats dispatch_stats;

/* context_switch.S: restores t's app state and jumps to t->jump_target. */
_Noreturn void jit_resume_cache(void);

#endif

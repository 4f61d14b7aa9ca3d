/* The dispatcher: what runs when code leaves the cache. It is called by
 * jit_dispatch_entry (context_switch.S) on the runtime stack with the app state saved in
 * the thread block, and decides where the thread goes next. */
#include "dispatcher.h"

#include <signal.h>

#include "config.h"
#include "fatal.h"
#include "fragment.h"
#include "instrument.h"
#include "signals.h"
#include "syscalls.h"
#include "threads.h"
#include "translate.h"
#include "x86_emit.h"

struct dispatch_stats dispatch_stats;

static void link_exit(struct jit_exit *rec, const struct fragment *to)
{
	if (!rec->branch_field || rec->linked || rec->generation != fragment_generation() ||
	    !rel32_reaches(rec->branch_field, to->cache_pc))
		return;
	patch_rel32(rec->branch_field, to->cache_pc);
	rec->linked = true;
	translate_stats.links++;
}

struct fragment *dispatch_find_fragment(uint64_t app_pc)
{
	struct fragment *f = fragment_lookup(app_pc);
	if (!f)
		f = translate_block(app_pc);
	if (!f)
		fatal("out of memory for translated code");
	return f;
}

void jit_dispatch(struct jit_thread *t, struct jit_exit *rec)
{
	/* A flush while handling this exit frees the record: work from a copy. */
	struct jit_exit exit = *rec;
	uint64_t generation = fragment_generation();
	uint64_t next = exit.target;

	switch (exit.kind) {
	case EXIT_DIRECT:
		break;
	case EXIT_INDIRECT:
		next = t->ibl_target;
		dispatch_stats.indirect_misses++;
		break;
	case EXIT_SYSCALL:
		t->app_pc = exit.target;
		syscall_dispatch(t);
		next = t->app_pc;
		break;
	case EXIT_BAD_FETCH:
		signals_app_fault(t, SIGSEGV, exit.target);
		break;
	case EXIT_BAD_OPCODE:
		signals_app_fault(t, SIGILL, exit.target);
		break;
	case EXIT_CALLOUT: {
		struct jit_callout c = {t, exit.target, exit.callout_arg, exit.block_remaining};
		exit.callout(&c);
		t->jump_target = (uint64_t)exit.resume;
		return;
	}
	case EXIT_UNSUPPORTED:
		fatal("the app ran an instruction the runtime does not support yet at 0x%lx",
		      exit.target);
	}

	if (jit_config.selftest_escape && exit.kind == EXIT_SYSCALL) {
		t->jump_target = next; /* native app code: check_native_exec must catch it */
		return;
	}
	struct fragment *f = dispatch_find_fragment(next);
	if (exit.kind == EXIT_DIRECT && generation == fragment_generation())
		link_exit(rec, f);
	if (exit.kind == EXIT_INDIRECT)
		thread_ibl_install(t, next, f->indirect_entry);
	t->jump_target = (uint64_t)f->cache_pc;
}

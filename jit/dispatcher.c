/* The dispatcher: what runs when code leaves the cache. It is called by
 * jit_dispatch_entry (context_switch.S) on the runtime stack with the app state saved in
 * the thread block, and decides where the thread goes next. */
#include "dispatcher.h"

#include <signal.h>

#include "app_memory.h"
#include "block.h"
#include "config.h"
#include "forked_code.h"
#include "fragment.h"
#include "instruction_count.h"
#include "instrument.h"
#include "int80.h"
#include "messages.h"
#include "runtime_lock.h"
#include "signals.h"
#include "syscalls.h"
#include "table_jump.h"
#include "threads.h"
#include "translate.h"
#include "vsyscall.h"
#include "x86_emit.h"

struct dispatch_stats dispatch_stats;

static void link_exit(struct jit_exit *rec, const struct fragment *to)
{
	if (!rec->branch_field || rec->linked || rec->falls_through ||
	    rec->generation != fragment_generation() || !threads_may_link() ||
	    !rel32_reaches(rec->branch_field, to->cache_pc))
		return;
	patch_rel32(rec->branch_field, to->cache_pc);
	rec->linked = true;
	translate_stats.links++;
}

void dispatch_link_present(const struct fragment *f)
{
	for (uint32_t i = 0; i < f->exit_count; i++) {
		struct jit_exit *e = f->exits[i];
		const struct fragment *to =
		    e->kind == EXIT_DIRECT ? fragment_lookup(e->target) : NULL;
		if (to)
			link_exit(e, to);
	}
}

static _Noreturn void out_of_cache(void)
{
	jit_fatal("out of memory for translated code%s", app_memory_limit_clause());
}

struct fragment *dispatch_find_fragment(uint64_t app_pc)
{
	struct fragment *f = fragment_lookup(app_pc);
	if (!f)
		f = translate_block(app_pc);
	if (!f)
		out_of_cache();
	return f;
}

/* Remembers which callouts ran at this instruction in its current execution. An
 * instruction's callouts run one after the other, each once, so seeing a callout again
 * means the instruction runs again. */
static void note_ran(struct jit_thread *t, const struct jit_callout_exit *call)
{
	bool seen = false;
	for (uint32_t i = 0; i < t->ran_count; i++)
		seen |= t->ran_args[i] == call->callout_arg;
	if (t->ran_pc != call->exit.target || seen) {
		t->ran_pc = call->exit.target;
		t->ran_count = 0;
	}
	if (t->ran_count < sizeof t->ran_args / sizeof t->ran_args[0])
		t->ran_args[t->ran_count++] = call->callout_arg;
}

/* Runs a client's callout. Returns true when t->jump_target is set; false when the thread
 * goes on at *next through a normal lookup.
 *
 * A callout that changes the instrumentation (a flush) must not leave the thread in the
 * old translation for the rest of the block, or an alarm armed just now could miss an
 * instruction later in the same block. The rest of the block then runs from a fresh
 * translation starting at this instruction, made once, without the callouts that already
 * ran here, and with the instruction count corrected for the part of the old block that
 * will not run. */
static bool run_callout(struct jit_thread *t, const struct jit_callout_exit *call, uint64_t *next)
{
	const struct jit_exit *exit = &call->exit;
	if (!call->is_budget)
		note_ran(t, call);
	t->app_pc = exit->target; /* the registers' rip, for the callout */
	uint64_t retirements = fragment_retirements();
	struct jit_callout c = {t, exit->target, call->callout_arg, exit->block_remaining};
	t->callout_remaining = exit->block_remaining;
	call->callout(&c);
	t->callout_remaining = 0;
	uint32_t limit = t->block_limit;
	t->block_limit = 0;
	if (call->one_iteration && t->app_pc == exit->target && !t->restart_block) {
		/* The block is one iteration of a REP string instruction: it runs where it is,
		 * also after a change of instrumentation, which its next part (through an
		 * exit) meets; no limit can cut it shorter. */
		t->jump_target = (uint64_t)call->resume;
		return true;
	}
	if (limit && call->is_budget && t->app_pc == exit->target) {
		/* Only the block's first `limit` instructions run, from a translation of them
		 * alone: the thread comes back at an exact count (jit_callout_limit_block). */
		instrument_uncount(t, exit->target, exit->block_remaining, call->budget_slots);
		struct fragment *part = translate_block_limited(exit->target, limit);
		if (!part)
			out_of_cache();
		t->jump_target = (uint64_t)part->cache_pc;
		return true;
	}
	if (t->app_pc != exit->target) {
		/* the callout sent the thread elsewhere (a signal handler): the rest of the
		 * block does not run */
		instrument_uncount(t, exit->target, exit->block_remaining, call->budget_slots);
		*next = t->app_pc;
		return false;
	}
	bool restart = t->restart_block;
	t->restart_block = false;
	if (retirements == fragment_retirements() && !restart) {
		t->jump_target = (uint64_t)call->resume;
		return true;
	}
	if (call->skip_to) { /* a suppressed instruction counts as executed */
		instrument_uncount(t, call->skip_to, exit->block_remaining - 1, call->budget_slots);
		*next = call->skip_to;
		return false;
	}
	instrument_uncount(t, exit->target, exit->block_remaining, call->budget_slots);
	if (call->is_budget) {
		*next = exit->target;
		return false;
	}
	struct fragment *once = translate_block_excluding(exit->target, t->ran_args, t->ran_count);
	if (!once)
		out_of_cache();
	t->jump_target = (uint64_t)once->cache_pc;
	return true;
}

static void dispatch_locked(struct jit_thread *t, struct jit_exit *rec);

static void unlink_block_at(struct jit_thread *t, uint64_t cache_pc)
{
	struct fragment *f = fragment_at_cache_pc(cache_pc);
	if (f)
		fragment_unlink(f);
	thread_clear_ibl(t);
}

/* The app pc the thread is at when it takes the exit (its registers' rip). */
static uint64_t exit_pc(const struct jit_thread *t, const struct jit_exit *rec)
{
	switch (rec->kind) {
	case EXIT_INDIRECT:
		return t->ibl_target;
	case EXIT_SYSCALL: /* before the syscall instruction, which has not run yet */
	case EXIT_INT80:
		return rec->target - 2;
	case EXIT_FAULT:
		return signals_fault_pc(t);
	default:
		return rec->target;
	}
}

/* Before f takes the table slot of its target from another fragment: f's entry passes
 * the others on to that one. (Retiring any fragment empties the tables: an occupant is
 * current.) */
static void keep_slot_occupant(struct jit_thread *t, uint64_t target, struct fragment *f)
{
	const uint8_t *entry = thread_ibl_entry(t, target);
	if (!entry || entry == f->indirect_entry || !threads_may_link())
		return;
	struct fragment *occupant = fragment_lookup(translate_entry_pc(entry));
	if (occupant && occupant->indirect_entry == entry)
		fragment_link_mismatch(f, occupant);
}

void dispatch_install_indirect(struct jit_thread *t, uint64_t target, struct fragment *f)
{
	keep_slot_occupant(t, target, f);
	thread_ibl_install(t, target, f->indirect_entry);
}

void jit_dispatch(struct jit_thread *t, struct jit_exit *rec)
{
	/* Where the thread is, for a thread that stopped the world and reads its registers
	 * while it waits for the lock (jit_thread_get_regs). */
	t->app_pc = exit_pc(t, rec);
	/* In the runtime counts as stopped for world_stop: from here on the thread can only
	 * wait for the lock, run a syscall, or work under the lock. */
	__atomic_store_n(&t->in_runtime, 1, __ATOMIC_SEQ_CST);
	runtime_lock();
	dispatch_locked(t, rec);
	__atomic_store_n(&t->in_runtime, 0, __ATOMIC_SEQ_CST);
	runtime_unlock();
}

/* The exits a thread takes between two blocks (before a system call instruction, which
 * is counted but has not run). */
static bool between_blocks(enum exit_kind kind)
{
	return kind <= EXIT_INT80;
}

static void dispatch_locked(struct jit_thread *t, struct jit_exit *rec)
{
	/* A flush while handling this exit frees the record: work from a copy. */
	struct jit_exit exit = *rec;
	struct jit_callout_exit call = {0}; /* (read for EXIT_CALLOUT only) */
	if (exit.kind == EXIT_CALLOUT)
		call = *jit_callout_exit_of(rec);
	uint64_t generation = fragment_generation();
	uint64_t next = exit.target;
	/* A chained block's end inside its count group: the rest of the group, counted, has
	 * not run (count_groups.h). */
	uint32_t group_rest = exit.falls_through ? exit.block_remaining : 0;
	if (group_rest)
		icount_uncount(t, group_rest, 0);

	if (t->safe_point_pending && between_blocks(exit.kind)) {
		/* A block boundary: the thread is between blocks (before the syscall of a
		 * syscall exit, which is counted already but not executed). */
		bool before_syscall = exit.kind == EXIT_SYSCALL || exit.kind == EXIT_INT80;
		t->app_pc = before_syscall		 ? exit.target - 2
			    : exit.kind == EXIT_INDIRECT ? t->ibl_target
							 : exit.target;
		instrument_safe_point(t, jit_thread_icount(t) - before_syscall);
	} else if (t->safe_point_pending && exit.kind == EXIT_CALLOUT) {
		/* Before the callout's instruction, which has not run (nor have the rest of the
		 * block's instructions counted at its start). */
		t->app_pc = exit.target;
		instrument_safe_point(t, jit_thread_icount(t) - exit.block_remaining);
	}
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
	case EXIT_INT80:
		t->app_pc = exit.target;
		int80_dispatch(t);
		next = t->app_pc;
		break;
	case EXIT_BAD_FETCH:
		if (!vsyscall_emulate(t, exit.target))
			signals_fetch_fault(t, exit.target);
		next = t->app_pc;
		break;
	case EXIT_BAD_OPCODE:
		signals_app_fault(t, SIGILL, ILL_ILLOPN, exit.target, exit.target);
		next = t->app_pc;
		break;
	case EXIT_CALLOUT:
		if (call.is_budget && signals_pending(t)) {
			/* A block start: the signal's handler runs first, and the block does not
			 * (it is counted again when it runs). */
			instrument_uncount(t, exit.target, exit.block_remaining, call.budget_slots);
			t->app_pc = exit.target;
			signals_deliver_pending(t);
			next = t->app_pc;
			break;
		}
		if (run_callout(t, &call, &next)) {
			/* A signal that came meanwhile (while the callout waited, say) is delivered
			 * where the block ends: the block must end in the dispatcher. */
			if (signals_pending(t))
				unlink_block_at(t, t->jump_target);
			return;
		}
		break;
	case EXIT_UNSUPPORTED:
		jit_fatal("the app ran an instruction the runtime does not support yet at 0x%lx",
			  exit.target);
	case EXIT_FAULT:
		signals_take_fault(t);
		next = t->app_pc;
		break;
	}

	if (between_blocks(exit.kind) && signals_pending(t)) {
		t->app_pc = next; /* a block boundary: the app's handler may run now */
		signals_deliver_pending(t);
		next = t->app_pc;
	}
	if (jit_config.selftest_escape && exit.kind == EXIT_SYSCALL) {
		t->jump_target = next; /* native app code: check_native_exec must catch it */
		return;
	}
	bool own_target = next == exit.target && generation == fragment_generation();
	/* (under the countdown, a group's rest is checked again: by the next block's own
	 * translation, or a chain entry) */
	if (exit.falls_through && own_target && fragment_is_current(exit.owner) &&
	    !(group_rest && icount_is_countdown())) {
		/* A chained block's end while its fragment was unlinked: the next block follows
		 * in the same fragment. */
		if (threads_may_link()) {
			patch_fall_through(exit.branch_field, NULL);
			rec->linked = true;
		}
		icount_recount(t, group_rest);
		t->jump_target = (uint64_t)exit.branch_field + FALL_THROUGH_SITE_LENGTH;
		return;
	}
	struct fragment *f = dispatch_find_fragment(next);
	/* (A signal handler may have taken the thread elsewhere: link only the exit's own
	 * target.) */
	if (exit.kind == EXIT_DIRECT && own_target)
		link_exit(rec, f);
	if (exit.kind == EXIT_INDIRECT) {
		dispatch_install_indirect(t, next, f);
		table_jump_fill(t, next, f);
		forked_code_note_indirect(next);
	}
	t->jump_target = (uint64_t)f->cache_pc;
}

/* The built-in per-thread instruction count (jit_enable_icount), kept in one of two ways.
 *
 * Striped (the default): four slots, a block adding to one of them (next_stripe):
 * consecutive blocks then rarely update the same counter, so the counter's load-add-store
 * does not chain every block to the previous one. The count is their sum.
 *
 * Countdown (jit_enable_icount_countdown, for a client that checks a budget in every block
 * anyway): what is left to the client's limit, counted down in two stripes, each block
 * checking its own (the stripes are the budget; the count is the limit less what is left).
 * A block then updates one counter instead of two. A block fires when its stripe goes
 * negative: at the latest when the whole would (the other stripe is never negative after
 * a check), maybe earlier (the client then sets the same limit again, which spreads what
 * is left anew). A REP string instruction's iterations go down in both stripes, so that the
 * next block fires whichever stripe it checks, and up in a correction slot. */
#include "instruction_count.h"

#include "block.h"
#include "messages.h"
#include "thread_block.h"
#include "threads.h"

enum {
	ICOUNT_SLOTS = 4,
	/* countdown: the slots from icount_slot on */
	DOWN_STRIPE0 = 0,
	DOWN_STRIPE1 = 1,
	DOWN_LIMIT = 2,
	DOWN_REP_CORRECTION = 3,
};
static int icount_slot = -1; /* the first of the four */
static bool countdown;
static jit_callout_fn countdown_fn;
static void *countdown_arg;

void jit_enable_icount(void)
{
	if (icount_slot >= 0)
		return;
	icount_slot = jit_thread_slot_reserve();
	for (int i = 1; i < ICOUNT_SLOTS; i++)
		if (jit_thread_slot_reserve() < 0)
			icount_slot = -1;
	if (icount_slot < 0)
		jit_fatal("no per-thread counters left for the instruction count");
}

void jit_enable_icount_countdown(jit_callout_fn fn, void *arg)
{
	jit_enable_icount();
	countdown = true;
	countdown_fn = fn;
	countdown_arg = arg;
}

static uint64_t *down(const struct jit_thread *t, int which)
{
	return (uint64_t *)&t->client_slots[icount_slot + which];
}

static uint64_t countdown_left(const struct jit_thread *t)
{
	return *down(t, DOWN_STRIPE0) + *down(t, DOWN_STRIPE1) + *down(t, DOWN_REP_CORRECTION);
}

void jit_set_icount_limit(struct jit_thread *t, uint64_t limit)
{
	int64_t left = (int64_t)(limit - jit_thread_icount(t));
	int64_t half = left < 0 ? 0 : left / 2;
	*down(t, DOWN_LIMIT) = limit;
	*down(t, DOWN_STRIPE0) = (uint64_t)(left - half);
	*down(t, DOWN_STRIPE1) = (uint64_t)half;
	*down(t, DOWN_REP_CORRECTION) = 0;
}

uint64_t jit_thread_icount(const struct jit_thread *t)
{
	if (icount_slot < 0)
		return 0;
	if (countdown)
		return *down(t, DOWN_LIMIT) - countdown_left(t);
	uint64_t sum = 0;
	for (int i = 0; i < ICOUNT_SLOTS; i++)
		sum += t->client_slots[icount_slot + i];
	return sum;
}

uint64_t jit_thread_next_icount(const struct jit_thread *t)
{
	return jit_thread_icount(t) - t->callout_remaining;
}

uint64_t jit_total_icount(void)
{
	uint64_t sum = 0;
	for (size_t i = 0; i < threads_count(); i++)
		sum += jit_thread_icount(threads_at(i));
	return sum;
}

uint64_t jit_callout_icount(const struct jit_callout *c)
{
	return jit_thread_icount(c->thread) - c->block_remaining;
}

/* In turn, as blocks are translated: the blocks of a loop are mostly translated one after
 * the other, the first time it runs, so they get different stripes (an address hash gave
 * the two blocks of sort's hottest loop, 9 bytes apart, the same one). Under the lock. */
static int next_stripe(int stripes)
{
	static unsigned turn;
	return (int)(turn++ % (unsigned)stripes);
}

bool instrument_counted(const struct jit_block *b, size_t i)
{
	return !jit_insn_is_rep_string(&b->insns[i].insn);
}

static void count_down(struct jit_block *b)
{
	int own = next_stripe(2);
	jit_insert_budget_check(b, icount_slot + own, countdown_fn, countdown_arg);
	for (size_t i = 0; i < b->length; i++)
		if (!instrument_counted(b, i)) {
			b->insns[i].rep_down_slot = icount_slot + (1 - own);
			jit_insert_rep_counter(b, i, icount_slot + DOWN_REP_CORRECTION);
		}
}

void icount_block(struct jit_block *b)
{
	if (icount_slot < 0)
		return;
	if (countdown) {
		count_down(b);
		return;
	}
	uint32_t plain = 0;
	for (size_t i = 0; i < b->length; i++) {
		if (instrument_counted(b, i))
			plain++;
		else
			jit_insert_rep_counter(b, i, icount_slot);
	}
	if (plain)
		jit_insert_block_counter(b, icount_slot + next_stripe(ICOUNT_SLOTS), plain);
}

bool icount_is_countdown(void)
{
	return countdown;
}

bool icount_is_countdown_slot(int slot)
{
	return countdown &&
	       (slot == icount_slot + DOWN_STRIPE0 || slot == icount_slot + DOWN_STRIPE1);
}

int icount_countdown_check(const struct jit_block *b)
{
	for (int i = 0; i < b->budget_count; i++)
		if (icount_is_countdown_slot(b->budgets[i].slot))
			return i;
	return -1;
}

bool icount_is_striped(void)
{
	return icount_slot >= 0 && !countdown;
}

int icount_stripe_counter(const struct jit_block *b)
{
	if (icount_slot < 0 || countdown)
		return -1;
	for (size_t i = 0; i < b->counter_count; i++)
		if (b->counters[i].slot >= icount_slot &&
		    b->counters[i].slot < icount_slot + ICOUNT_SLOTS)
			return (int)i;
	return -1;
}

void icount_recount(struct jit_thread *t, uint32_t n)
{
	if (icount_slot >= 0 && !countdown)
		t->client_slots[icount_slot] += n;
}

uint32_t icount_uncount(struct jit_thread *t, uint32_t remaining, uint32_t budget_slots)
{
	if (icount_slot < 0)
		return budget_slots;
	if (!countdown) {
		t->client_slots[icount_slot] -= remaining;
		return budget_slots;
	}
	*down(t, DOWN_STRIPE0) += remaining;
	return budget_slots & ~(3u << icount_slot);
}

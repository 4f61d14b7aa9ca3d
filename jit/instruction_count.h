/* Inside the JIT: the built-in instruction count's part in translation and in leaving a
 * block early (the API is instrument.h's jit_enable_icount and its kin). */
#ifndef JIT_INSTRUCTION_COUNT_H
#define JIT_INSTRUCTION_COUNT_H

#include <stdint.h>

#include "instrument.h"

/* Counts the block's instructions (when some client asked for the count), before the
 * clients instrument it. */
void icount_block(struct jit_block *b);

/* The thread leaves its block with `remaining` counted instructions not run: takes them
 * out of the count. Returns the budget slots still to be given them back (the countdown,
 * itself a budget, is not among them any more). */
uint32_t icount_uncount(struct jit_thread *t, uint32_t remaining, uint32_t budget_slots);

/* Whether the count is kept in striped counters (blocks may share their updates: count
 * groups), rather than not at all or as a countdown. */
bool icount_is_striped(void);
/* Whether the count is kept as a countdown (a budget checked in every block, or once
 * for a count group: count_groups.h). */
bool icount_is_countdown(void);
/* Whether a budget check on this slot is the countdown's. */
bool icount_is_countdown_slot(int slot);
/* The index in b->budgets of the countdown's check, or -1. */
int icount_countdown_check(const struct jit_block *b);

/* The index in b->counters of the striped count's counter (whose slots are
 * interchangeable: the count is their sum), or -1: no count, or the countdown (a budget
 * that every block checks). */
int icount_stripe_counter(const struct jit_block *b);

/* Gives back n instructions that icount_uncount took out (a thread resuming inside the
 * count group it left: count_groups.h). Striped count only. */
void icount_recount(struct jit_thread *t, uint32_t n);

#endif

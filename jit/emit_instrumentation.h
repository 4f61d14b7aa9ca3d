/* The inline code behind the clients' per-thread tables and trace records (instrument.h):
 * what the translator places at a block's start and around an instruction (memory marks:
 * memory_marks.h). */
#ifndef JIT_EMIT_INSTRUMENTATION_H
#define JIT_EMIT_INSTRUMENTATION_H

#include <stdbool.h>

#include "block.h"
#include "x86_emit.h"

/* Entry `index` of the table the slot points to, plus one (and the index stored in the
 * index slot). Leaves every register as it was, and the flags when flags_live. */
void emit_table_counter(struct emitter *e, const struct block_table_counter *c, bool flags_live);

/* Around a REP string instruction: %rcx added to the entry before it, subtracted after
 * it, so the entry gains the iterations that ran. Flag-free. */
void emit_rep_table_counter(struct emitter *e, int table_slot, uint32_t index, bool after);

/* A block's trace record begins (jit_insert_trace_block): its word stored at the buffer,
 * the buffer slot advanced by the record's size. Leaves every flag and register as it was;
 * the room check is the translator's (a budget check on the room slot). */
void emit_trace_header(struct emitter *e, const struct block_trace *tr);

/* At a block's start, when it has a copy without its record (jit_insert_trace_skip): a
 * branch to that copy when the skip slot is non-zero; returns the branch's rel32 field, to
 * be patched to the copy, which starts with emit_trace_skip_entry. Leaves every flag and
 * register as it was: with flags_live, the test goes through %rcx and jrcxz. */
uint8_t *emit_trace_skip_switch(struct emitter *e, const struct block_trace *tr, bool flags_live);
void emit_trace_skip_entry(struct emitter *e, bool flags_live);

/* The values bi asked to store before it (after = false) or after it, at their offsets in
 * the block's record. flags_live: the app's flags must survive. */
void emit_trace_stores(struct emitter *e, const struct block_insn *bi, const struct block_trace *tr,
		       bool after, bool flags_live);

/* Whether the memory operand number `operand` of bi can be read once bi has run (its
 * bytes then are what it loaded or stored): an operand bi accesses as data, whole, at one
 * address (not a REP string instruction, which may run no iteration, nor a masked or
 * gathering access). */
bool trace_memory_readable_after(const struct block_insn *bi, unsigned operand);

/* Code cache bytes the stores of bi may take. */
uint32_t trace_stores_room(const struct block_insn *bi);

#endif

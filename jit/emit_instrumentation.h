/* The inline code behind the clients' per-thread tables and memory marks (instrument.h):
 * what the translator places at a block's start and around an instruction. */
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

/* Before bi: for each memory operand it reads or writes, sets the bytes of the 64-byte
 * lines it touches in the map the slot points to (byte 2*line for a read, 2*line+1 for a
 * write, line = address bits 6..46). flags_live: the app's flags must survive. Plain byte
 * stores: threads marking the same line at once lose nothing. */
void emit_memory_marks(struct emitter *e, const struct block_insn *bi, int slot, bool flags_live);

/* The same marks with three registers held across a run of a block's instructions: their
 * app values wait in TB_HELD_REGS (lowest register first) from emit_held_marks_begin to
 * emit_held_marks_end, one holds the map, one a shift count, and each line is then five
 * flag-free instructions (BMI2) that leave %rax and %rcx alone, where emit_memory_marks
 * sets aside %rax, %rcx and often the flags around every instruction. No instruction of
 * the run may name a held register (held_marks_choose) nor leave the block; a fault in
 * the run finds the app's values through the instruction's insn_map.held_regs. */
struct held_marks {
	uint16_t regs; /* the three, as a mask */
	int8_t line, shift, base;
};

/* Three registers no instruction of b names (as an operand, hidden or not, or in an
 * address); false when there are not three or the CPU lacks BMI2. */
bool held_marks_choose(const struct jit_block *b, struct held_marks *h);
void emit_held_marks_begin(struct emitter *e, const struct held_marks *h, int slot);
void emit_held_marks_end(struct emitter *e, const struct held_marks *h);
/* emit_memory_marks' marks for bi, with the registers held; false, with nothing emitted,
 * when an address needs more than a lea (%fs-based, xlat): emit_memory_marks then. */
bool emit_held_memory_marks(struct emitter *e, const struct held_marks *h,
			    const struct block_insn *bi);

/* Whether emit_memory_marks has something to mark for bi (REP string instructions are
 * left to the client: their ranges depend on the iterations). */
bool memory_marks_wanted(const struct block_insn *bi);

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

/* The inline code of memory marks (instrument.h, jit_insert_memory_marks): before an
 * instruction, the 64-byte lines its memory operands touch set in a client's byte map. */
#ifndef JIT_MEMORY_MARKS_H
#define JIT_MEMORY_MARKS_H

#include <stdbool.h>
#include <stdint.h>

#include "block.h"
#include "x86_emit.h"

/* Before bi: for each memory operand it reads or writes, sets the bytes of the 64-byte
 * lines it touches in the map the slot points to (byte 2*line for a read, 2*line+1 for a
 * write, line = address bits 6..46). flags_live: the app's flags must survive. Plain byte
 * stores: threads marking the same line at once lose nothing. */
void emit_memory_marks(struct emitter *e, const struct block_insn *bi, int slot, bool flags_live);

/* The same marks with three registers held across a run of a block's instructions: their
 * app values wait in TB_HELD_REGS (lowest register first) from emit_held_marks_begin to
 * emit_held_marks_end, one holds the map, one the mask of an address's line bits (or a
 * shift count, where pext is slow), and each line is then three to five flag-free
 * instructions (BMI2) that leave %rax and %rcx alone, where emit_memory_marks sets aside
 * %rax, %rcx and often the flags around every instruction. No instruction of the run may
 * name a held register (held_marks_choose) nor leave the block; a fault in the run finds
 * the app's values through the instruction's insn_map.held_regs. */
struct held_marks {
	uint16_t regs; /* the three, as a mask */
	int8_t line, line_bits, base;
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

#endif

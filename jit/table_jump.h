/* Jumps through constant tables: an interpreter's dispatch, `jmp *T(,%idx,8)` or
 * `mov T(,%idx,8),%reg; jmp *%reg` (CPython's, in a non-PIE build), or a switch of PIE code,
 * `lea T(%rip),%base; ... movslq (%base,%idx,4),%reg; add %base,%reg; jmp *%reg` (sqlite's
 * bytecode engine), where the index was zero-extended from a byte in the same block and the
 * 256 entries from T lie in memory the app cannot write without a system call the runtime
 * sees. Through the lookup, the jump
 * waits for the app's load, then for the lookup's own load, and the target's entry checks
 * the target; here it goes through a table of the thread block's, one per app table,
 * indexed as the app's is, whose entries lead to the translations of the app table's
 * entries: one load, on the index alone, and no check (the app table cannot change while
 * the entries stand: changing it retires the translations and empties these tables).
 *
 * An empty entry leads to the table's miss code, which computes the target as the app's
 * jump does and takes the lookup's miss path, noting the entry (TB_TABLE_FILL) for the
 * dispatcher to fill. A kept translation (persist.h) names its table and its number. */
#ifndef JIT_TABLE_JUMP_H
#define JIT_TABLE_JUMP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "block.h"
#include "fragment.h"
#include "thread_block.h"

struct table_jump {
	size_t load;   /* the block's instruction that reads the app's table (maybe the jump) */
	int index_reg; /* hardware register number of the index */
	uint32_t tb_offset; /* of the thread block's table: jump through %gs:tb_offset(,idx,8) */
	/* what a kept translation of the jump relies on, as a constant slot of persist.h:
	 * the app table's address, and (table_jump_is_dependency) its kind and number */
	uint64_t table;
	uint64_t dependency;
};

/* Whether block b ends in such a jump; its description in *tj. The translation then
 * depends on the app table's pages (fragment_depends_on). False also when all
 * TABLE_JUMP_TABLES tables are taken by other app tables. */
bool table_jump_find(const struct jit_block *b, struct table_jump *tj);

/* Whether a kept translation's constant slot value is a table jump's dependency, and
 * whether it holds in this process: the table constant, its number its own or free (then
 * taken), so that the kept code's jumps through that number hold. */
bool table_jump_is_dependency(uint64_t value);
bool table_jump_adopt(uint64_t table, uint64_t dependency);

/* The thread's tables back to their miss code (with its lookup table: thread_clear_ibl). */
void table_jumps_clear(struct jit_thread *t);

/* At an indirect branch's miss, after the dispatcher found f for app pc target: fills the
 * entry the table's miss code noted, if it still names target. */
void table_jump_fill(struct jit_thread *t, uint64_t target, const struct fragment *f);

/* App tables so far, and entries filled (-jit:stats). */
unsigned table_jump_tables(void);
uint64_t table_jump_fills(void);

#endif

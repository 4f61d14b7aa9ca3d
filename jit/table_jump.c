#include "table_jump.h"

#include <sys/mman.h>

#include "app_copy.h"
#include "constant_slot.h"
#include "operand_address.h"
#include "rt_syscall.h"
#include "threads.h"
#include "translate.h"
#include "x86_emit.h"

enum {
	TABLE_BYTES = TABLE_JUMP_ENTRIES * 8,
	MISS_CODE_STRIDE = 64,
};

/* The app tables, each with its miss code; never forgotten (at most TABLE_JUMP_TABLES in a
 * process, a table unmapped and another mapped at its address reuse its number). */
static uint64_t tables[TABLE_JUMP_TABLES];
static unsigned table_count;
static uint8_t *miss_code; /* TABLE_JUMP_TABLES pieces of MISS_CODE_STRIDE bytes */
static uint64_t fills;

static uint32_t table_offset(unsigned n)
{
	return TB_TABLE_JUMPS + n * TABLE_BYTES;
}

static void fill_with_miss(struct jit_thread *t, unsigned n)
{
	uint64_t *entries = (uint64_t *)((char *)t + table_offset(n));
	for (size_t i = 0; i < TABLE_JUMP_ENTRIES; i++)
		entries[i] = (uint64_t)(miss_code + n * MISS_CODE_STRIDE);
}

static bool has_table(const struct jit_thread *t)
{
	return !__atomic_load_n(&t->reclaimed, __ATOMIC_ACQUIRE);
}

/* Table n's miss code: the target as the app's jump reads it, the entry noted, and on to
 * the lookup's miss with the lookup's state (target in %rcx, the app's %rcx and %r11 set
 * aside: %r11 by the jump). */
static void emit_miss_code(unsigned n, uint64_t table)
{
	struct emitter e = {miss_code + n * MISS_CODE_STRIDE, miss_code + n * MISS_CODE_STRIDE,
			    miss_code + (n + 1) * MISS_CODE_STRIDE, false};
	static const uint8_t load[] = {0x4a, 0x8b, 0x0c, 0xdd};	 /* mov d32(,%r11,8),%rcx */
	static const uint8_t entry[] = {0x4e, 0x8d, 0x1c, 0xdd}; /* lea d32(,%r11,8),%r11 */
	emit_store_gs(&e, JIT_GPR_RCX, TB_SCRATCH_RCX);
	emit_bytes(&e, load, sizeof load);
	emit_u32(&e, (uint32_t)table);
	emit_bytes(&e, entry, sizeof entry);
	emit_u32(&e, table_offset(n));
	emit_store_gs(&e, JIT_GPR_R11, TB_TABLE_FILL);
	emit_jmp_gs(&e, TB_IBL_MISS);
}

static void each_thread_fill(unsigned n)
{
	for (size_t i = 0; i < threads_count(); i++)
		if (has_table(threads_at(i)))
			fill_with_miss(threads_at(i), n);
	for (size_t i = 0; i < threads_vfork_slots(); i++)
		if (threads_vfork_child_at(i) && has_table(threads_vfork_child_at(i)))
			fill_with_miss(threads_vfork_child_at(i), n);
}

/* The number of the app table at `table`, taken now if new; -1 when none is left. */
static int table_number(uint64_t table)
{
	for (unsigned n = 0; n < table_count; n++)
		if (tables[n] == table)
			return (int)n;
	if (table_count == TABLE_JUMP_TABLES)
		return -1;
	if (!miss_code) {
		long at =
		    rt_mmap(NULL, TABLE_JUMP_TABLES * MISS_CODE_STRIDE,
			    PROT_READ | PROT_WRITE | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (rt_is_error(at))
			return -1;
		miss_code = (uint8_t *)at;
	}
	unsigned n = table_count;
	emit_miss_code(n, table);
	tables[n] = table;
	each_thread_fill(n);
	table_count++;
	return (int)n;
}

/* A 64-bit load from d32(,%index,8) with no base or segment override: the table's address
 * and its index register. */
static bool table_operand(const ZydisDecodedOperand *op, uint64_t *table, int *index)
{
	if (op->type != ZYDIS_OPERAND_TYPE_MEMORY || op->size != 64 ||
	    op->mem.base != ZYDIS_REGISTER_NONE || op->mem.scale != 8 ||
	    ZydisRegisterGetClass(op->mem.index) != ZYDIS_REGCLASS_GPR64 ||
	    op->mem.segment == ZYDIS_REGISTER_FS || op->mem.segment == ZYDIS_REGISTER_GS ||
	    !op->mem.disp.has_displacement)
		return false;
	*table = (uint64_t)op->mem.disp.value;
	*index = gpr_number(op->mem.index);
	return true;
}

static bool writes_register(const struct block_insn *bi, int reg)
{
	const ZydisDecodedOperand *ops = block_insn_ops(bi);
	for (unsigned i = 0; i < bi->insn.operand_count; i++)
		if (ops[i].type == ZYDIS_OPERAND_TYPE_REGISTER &&
		    (ops[i].actions & ZYDIS_OPERAND_ACTION_MASK_WRITE) &&
		    gpr_number(ops[i].reg.value) == reg)
			return true;
	return false;
}

/* Whether the last instruction before `before` to write register reg zero-extends a byte
 * into all of it (so that it indexes at most TABLE_JUMP_ENTRIES entries). */
static bool index_is_a_byte(const struct jit_block *b, size_t before, int reg)
{
	for (size_t i = before; i-- > 0;) {
		const struct block_insn *bi = &b->insns[i];
		if (!writes_register(bi, reg))
			continue;
		const ZydisDecodedOperand *ops = block_insn_ops(bi);
		return bi->insn.mnemonic == ZYDIS_MNEMONIC_MOVZX && ops[0].size >= 32 &&
		       ops[1].size == 8;
	}
	return false;
}

/* Nothing inserted at the instruction: the jump's translation replaces it alone. */
static bool plain(const struct block_insn *bi)
{
	return !bi->callout_count && !bi->trace_store_count && bi->memory_marks_slot < 0 &&
	       bi->rep_counter_slot < 0 && bi->rep_down_slot < 0 && bi->rep_table_slot < 0 &&
	       !bi->suppressed;
}

bool table_jump_find(const struct jit_block *b, struct table_jump *tj)
{
	if (!b->length || b->trace.buffer_slot >= 0)
		return false;
	size_t last = b->length - 1;
	const struct block_insn *jump = &b->insns[last];
	if (jump->insn.mnemonic != ZYDIS_MNEMONIC_JMP || !plain(jump))
		return false;
	const ZydisDecodedOperand *target = &block_insn_ops(jump)[0];
	uint64_t table;
	int index;
	size_t load = last;
	if (target->type == ZYDIS_OPERAND_TYPE_REGISTER) {
		/* mov d32(,%index,8),%reg; jmp *%reg, %reg not the one the jump borrows */
		int reg = gpr_number(target->reg.value);
		if (!last || reg < 0 || reg == JIT_GPR_R11 || reg == JIT_GPR_RSP)
			return false;
		load = last - 1;
		const struct block_insn *mov = &b->insns[load];
		const ZydisDecodedOperand *ops = block_insn_ops(mov);
		if (mov->insn.mnemonic != ZYDIS_MNEMONIC_MOV || !plain(mov) ||
		    ops[0].type != ZYDIS_OPERAND_TYPE_REGISTER || ops[0].size != 64 ||
		    gpr_number(ops[0].reg.value) != reg || !table_operand(&ops[1], &table, &index))
			return false;
	} else if (!table_operand(target, &table, &index)) {
		return false;
	}
	if (!index_is_a_byte(b, load, index) || !constant_range(table, TABLE_BYTES))
		return false;
	int n = table_number(table);
	if (n < 0)
		return false;
	fragment_depends_on(table, table + TABLE_BYTES);
	*tj = (struct table_jump){load, index, table_offset((unsigned)n)};
	return true;
}

void table_jumps_clear(struct jit_thread *t)
{
	for (unsigned n = 0; n < table_count; n++)
		fill_with_miss(t, n);
}

void table_jump_fill(struct jit_thread *t, uint64_t target, const struct fragment *f)
{
	uint64_t at = t->table_fill;
	t->table_fill = 0;
	if (at < TB_TABLE_JUMPS || at >= table_offset(table_count) || at % 8)
		return;
	unsigned n = (unsigned)((at - TB_TABLE_JUMPS) / TABLE_BYTES);
	uint64_t entry = tables[n] + (at - table_offset(n));
	uint64_t now;
	const uint8_t *hit = translate_entry_table_hit(f->indirect_entry);
	if (f->app_pc != target || !hit || !app_copy_in(&now, entry, sizeof now) || now != target)
		return;
	*(uint64_t *)((char *)t + at) = (uint64_t)hit;
	t->ibl_dirty = true;
	fills++;
}

unsigned table_jump_tables(void)
{
	return table_count;
}

uint64_t table_jump_fills(void)
{
	return fills;
}

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
	TABLE_BYTES = TABLE_JUMP_ENTRIES * 8, /* of a thread block's table */
	MISS_CODE_STRIDE = 64,
};

/* How an app table's entry gives the target: the address itself (8 bytes), or (PIE code's
 * switches) a 32-bit offset from the table's start. */
enum entry_kind { ADDRESSES = 8, OFFSETS = 4 };

struct app_table {
	uint64_t base; /* 0: the number is free */
	enum entry_kind kind;
};

/* A kept translation's dependency on its table (persist.h's constant slots): the table's
 * address as the slot, and as the value this tag with the kind and the number, which its
 * code holds (no app code address has the top bit). */
static const uint64_t DEPENDENCY = 1ull << 63;

/* The app tables by number, each with its miss code; never forgotten (at most
 * TABLE_JUMP_TABLES in a process, a table unmapped and another mapped at its address reuse
 * its number). */
static struct app_table tables[TABLE_JUMP_TABLES];
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

/* Table n's miss code: the target as the app's jump computes it (flags untouched), the
 * entry noted, and on to the lookup's miss with the lookup's state (target in %rcx, the
 * app's %rcx and %r11 set aside: %r11 by the jump). */
static void emit_miss_code(unsigned n, const struct app_table *table)
{
	struct emitter e = {miss_code + n * MISS_CODE_STRIDE, miss_code + n * MISS_CODE_STRIDE,
			    miss_code + (n + 1) * MISS_CODE_STRIDE, false};
	static const uint8_t load[] = {0x4a, 0x8b, 0x0c, 0xdd};	  /* mov d32(,%r11,8),%rcx */
	static const uint8_t offset[] = {0x4a, 0x63, 0x0c, 0x99}; /* movslq (%rcx,%r11,4),%rcx */
	static const uint8_t entry[] = {0x4e, 0x8d, 0x1c, 0xdd};  /* lea d32(,%r11,8),%r11 */
	static const uint8_t add[] = {0x4a, 0x8d, 0x0c, 0x19};	  /* lea (%rcx,%r11),%rcx */
	emit_store_gs(&e, JIT_GPR_RCX, TB_SCRATCH_RCX);
	if (table->kind == ADDRESSES) {
		emit_bytes(&e, load, sizeof load);
		emit_u32(&e, (uint32_t)table->base);
	} else {
		emit_movabs(&e, JIT_GPR_RCX, table->base);
		emit_bytes(&e, offset, sizeof offset);
	}
	emit_bytes(&e, entry, sizeof entry);
	emit_u32(&e, table_offset(n));
	emit_store_gs(&e, JIT_GPR_R11, TB_TABLE_FILL);
	if (table->kind == OFFSETS) {
		emit_movabs(&e, JIT_GPR_R11, table->base);
		emit_bytes(&e, add, sizeof add);
	}
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

static bool same_table(const struct app_table *a, const struct app_table *b)
{
	return a->base == b->base && a->kind == b->kind;
}

/* Number n for the app table: true when it has it already or takes it now (free). */
static bool take_number(unsigned n, const struct app_table *table)
{
	if (tables[n].base)
		return same_table(&tables[n], table);
	if (!miss_code) {
		long at =
		    rt_mmap(NULL, TABLE_JUMP_TABLES * MISS_CODE_STRIDE,
			    PROT_READ | PROT_WRITE | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (rt_is_error(at))
			return false;
		miss_code = (uint8_t *)at;
	}
	emit_miss_code(n, table);
	tables[n] = *table;
	each_thread_fill(n);
	table_count++;
	return true;
}

/* The app table's number, its own or the first free one; -1 when none is left. */
static int table_number(const struct app_table *table)
{
	for (unsigned n = 0; n < TABLE_JUMP_TABLES; n++)
		if (same_table(&tables[n], table))
			return (int)n;
	for (unsigned n = 0; n < TABLE_JUMP_TABLES; n++)
		if (!tables[n].base)
			return take_number(n, table) ? (int)n : -1;
	return -1;
}

static uint64_t table_bytes(const struct app_table *table)
{
	return (uint64_t)TABLE_JUMP_ENTRIES * table->kind;
}

/* The table's entries lie in memory the app cannot change unseen. */
static bool table_constant(const struct app_table *table)
{
	return table->base && constant_range(table->base, table_bytes(table));
}

/* The translation jumps through the table: changing it must retire the translation. */
static void depend_on(const struct app_table *table)
{
	fragment_depends_on(table->base, table->base + table_bytes(table));
}

/* A load of an entry of `size` bits from disp(base,%index,scale), no segment override: its
 * registers (-1: none) and displacement. */
static bool table_load(const ZydisDecodedOperand *op, unsigned size, unsigned scale, int *base,
		       int *index, int64_t *disp)
{
	if (op->type != ZYDIS_OPERAND_TYPE_MEMORY || op->size != size || op->mem.scale != scale ||
	    ZydisRegisterGetClass(op->mem.index) != ZYDIS_REGCLASS_GPR64 ||
	    op->mem.segment == ZYDIS_REGISTER_FS || op->mem.segment == ZYDIS_REGISTER_GS)
		return false;
	*base = op->mem.base == ZYDIS_REGISTER_NONE ? -1 : gpr_number(op->mem.base);
	if (op->mem.base != ZYDIS_REGISTER_NONE &&
	    ZydisRegisterGetClass(op->mem.base) != ZYDIS_REGCLASS_GPR64)
		return false;
	*index = gpr_number(op->mem.index);
	*disp = op->mem.disp.has_displacement ? op->mem.disp.value : 0;
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

/* The last instruction before `before` that writes register reg, or NULL. */
static const struct block_insn *last_writer(const struct jit_block *b, size_t before, int reg)
{
	for (size_t i = before; i-- > 0;)
		if (writes_register(&b->insns[i], reg))
			return &b->insns[i];
	return NULL;
}

/* Whether register reg, where instruction `before` reads it, was zero-extended from a byte
 * in the block (so that it indexes at most TABLE_JUMP_ENTRIES entries). */
static bool index_is_a_byte(const struct jit_block *b, size_t before, int reg)
{
	const struct block_insn *bi = last_writer(b, before, reg);
	if (!bi || bi->insn.mnemonic != ZYDIS_MNEMONIC_MOVZX)
		return false;
	const ZydisDecodedOperand *ops = block_insn_ops(bi);
	return ops[0].size >= 32 && ops[1].size == 8;
}

/* Whether register reg holds, where instruction `before` reads it, an address the block set
 * with `lea disp(%rip)`: *address. */
static bool holds_rip_address(const struct jit_block *b, size_t before, int reg, uint64_t *address)
{
	const struct block_insn *bi = last_writer(b, before, reg);
	if (!bi || bi->insn.mnemonic != ZYDIS_MNEMONIC_LEA)
		return false;
	const ZydisDecodedOperand *ops = block_insn_ops(bi);
	if (ops[0].size != 64 || ops[1].mem.base != ZYDIS_REGISTER_RIP ||
	    ops[1].mem.index != ZYDIS_REGISTER_NONE)
		return false;
	*address = bi->pc + bi->insn.length + (uint64_t)ops[1].mem.disp.value;
	return true;
}

static bool is_register(const ZydisDecodedOperand *op, int reg)
{
	return op->type == ZYDIS_OPERAND_TYPE_REGISTER && op->size == 64 &&
	       gpr_number(op->reg.value) == reg;
}

/* Nothing inserted at the instruction: the jump's translation replaces it alone. */
static bool plain(const struct block_insn *bi)
{
	return !bi->callout_count && !bi->trace_store_count && bi->memory_marks_slot < 0 &&
	       bi->rep_counter_slot < 0 && bi->rep_down_slot < 0 && bi->rep_table_slot < 0 &&
	       !bi->suppressed;
}

/* `movslq (%base,%index,4),%reg; add %base,%reg` ending at instruction `add`, %base set by
 * `lea T(%rip)` in the block: T in *table. */
static bool offset_table(const struct jit_block *b, size_t add, int reg, struct app_table *table,
			 int *index)
{
	if (add < 1)
		return false;
	const struct block_insn *sum = &b->insns[add], *load = &b->insns[add - 1];
	const ZydisDecodedOperand *sum_ops = block_insn_ops(sum), *load_ops = block_insn_ops(load);
	int base;
	int64_t disp;
	if (sum->insn.mnemonic != ZYDIS_MNEMONIC_ADD ||
	    load->insn.mnemonic != ZYDIS_MNEMONIC_MOVSXD || !plain(sum) || !plain(load) ||
	    !is_register(&sum_ops[0], reg) || !is_register(&load_ops[0], reg) ||
	    !table_load(&load_ops[1], 32, 4, &base, index, &disp) || disp || base < 0 ||
	    base == reg || base == JIT_GPR_R11 || !is_register(&sum_ops[1], base) ||
	    !holds_rip_address(b, add - 1, base, &table->base))
		return false;
	table->kind = OFFSETS;
	return true;
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
	struct app_table table = {0, ADDRESSES};
	int base, index;
	int64_t disp;
	size_t load = last;
	if (target->type == ZYDIS_OPERAND_TYPE_REGISTER) {
		/* through a register the jump's translation does not borrow, which either
		 * `mov T(,%index,8)` or `movslq (%base,%index,4); add %base` set */
		int reg = gpr_number(target->reg.value);
		if (!last || reg < 0 || reg == JIT_GPR_R11 || reg == JIT_GPR_RSP)
			return false;
		load = last - 1;
		const struct block_insn *mov = &b->insns[load];
		const ZydisDecodedOperand *ops = block_insn_ops(mov);
		if (offset_table(b, last - 1, reg, &table, &index))
			load = last - 2;
		else if (mov->insn.mnemonic != ZYDIS_MNEMONIC_MOV || !plain(mov) ||
			 !is_register(&ops[0], reg) ||
			 !table_load(&ops[1], 64, 8, &base, &index, &disp) || base >= 0)
			return false;
		else
			table.base = (uint64_t)disp;
	} else if (!table_load(target, 64, 8, &base, &index, &disp) || base >= 0) {
		return false;
	} else {
		table.base = (uint64_t)disp;
	}
	if (!index_is_a_byte(b, load, index) || !table_constant(&table))
		return false;
	int n = table_number(&table);
	if (n < 0)
		return false;
	depend_on(&table);
	*tj = (struct table_jump){load, index, table_offset((unsigned)n), table.base,
				  DEPENDENCY | (uint64_t)table.kind << 8 | (unsigned)n};
	return true;
}

bool table_jump_is_dependency(uint64_t value)
{
	return value & DEPENDENCY;
}

bool table_jump_adopt(uint64_t table_base, uint64_t dependency)
{
	struct app_table table = {table_base, (enum entry_kind)(dependency >> 8 & 0xff)};
	unsigned n = dependency & 0xff;
	if (!(table.kind == ADDRESSES || table.kind == OFFSETS) || n >= TABLE_JUMP_TABLES ||
	    (dependency & ~(DEPENDENCY | 0xffff)) || !table_constant(&table) ||
	    !take_number(n, &table))
		return false;
	depend_on(&table);
	return true;
}

void table_jumps_clear(struct jit_thread *t)
{
	for (unsigned n = 0; n < TABLE_JUMP_TABLES; n++)
		if (tables[n].base)
			fill_with_miss(t, n);
}

void table_jump_fill(struct jit_thread *t, uint64_t target, const struct fragment *f)
{
	uint64_t at = t->table_fill;
	t->table_fill = 0;
	if (at < TB_TABLE_JUMPS || at >= table_offset(TABLE_JUMP_TABLES) || at % 8)
		return;
	unsigned n = (unsigned)((at - TB_TABLE_JUMPS) / TABLE_BYTES);
	const struct app_table *table = &tables[n];
	if (!table->base)
		return;
	uint64_t index = (at - table_offset(n)) / 8, now = 0;
	int32_t offset;
	bool read = table->kind == ADDRESSES
			? app_copy_in(&now, table->base + index * 8, sizeof now)
			: app_copy_in(&offset, table->base + index * 4, sizeof offset);
	if (read && table->kind == OFFSETS)
		now = table->base + (uint64_t)(int64_t)offset;
	const uint8_t *hit = translate_entry_table_hit(f->indirect_entry);
	if (f->app_pc != target || !hit || !read || now != target)
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

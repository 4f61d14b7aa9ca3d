#include "x86_emit.h"

#include <string.h>

#include "cpu_id.h"
#include "thread_block.h"

void emit_bytes(struct emitter *e, const void *bytes, unsigned n)
{
	if ((unsigned long)(e->end - e->cur) < n) {
		e->overflow = true;
		return;
	}
	memcpy(e->cur, bytes, n);
	e->cur += n;
}

void emit_u8(struct emitter *e, uint8_t v)
{
	emit_bytes(e, &v, 1);
}
void emit_u32(struct emitter *e, uint32_t v)
{
	emit_bytes(e, &v, 4);
}
void emit_u64(struct emitter *e, uint64_t v)
{
	emit_bytes(e, &v, 8);
}

static uint8_t rex_w_r(int reg)
{
	return 0x48 | (reg >= 8 ? 0x04 : 0);
}

/* 65 REX.W op modrm(00,reg,100) sib(25) disp32: op with %gs:disp32 as its memory operand. */
static void emit_gs_modrm(struct emitter *e, uint8_t opcode, int reg, uint32_t off)
{
	uint8_t insn[] = {0x65, rex_w_r(reg), opcode, (uint8_t)(((reg & 7) << 3) | 4), 0x25};
	emit_bytes(e, insn, sizeof insn);
	emit_u32(e, off);
}

void emit_store_gs(struct emitter *e, int reg, uint32_t off)
{
	emit_gs_modrm(e, 0x89, reg, off);
}
void emit_load_gs(struct emitter *e, int reg, uint32_t off)
{
	emit_gs_modrm(e, 0x8b, reg, off);
}

void emit_jmp_gs(struct emitter *e, uint32_t off)
{
	uint8_t insn[] = {0x65, 0xff, 0x24, 0x25};
	emit_bytes(e, insn, sizeof insn);
	emit_u32(e, off);
}

void emit_movabs(struct emitter *e, int reg, uint64_t imm)
{
	uint8_t insn[] = {0x48 | (reg >= 8 ? 0x01 : 0), (uint8_t)(0xb8 + (reg & 7))};
	emit_bytes(e, insn, sizeof insn);
	emit_u64(e, imm);
}

void emit_mov_reg_reg(struct emitter *e, int dst, int src)
{
	uint8_t insn[] = {(uint8_t)(0x48 | (src >= 8 ? 0x04 : 0) | (dst >= 8 ? 0x01 : 0)), 0x89,
			  (uint8_t)(0xc0 | ((src & 7) << 3) | (dst & 7))};
	emit_bytes(e, insn, sizeof insn);
}

bool rel32_reaches(const uint8_t *field, const uint8_t *target)
{
	int64_t delta = (int64_t)(target - (field + 4));
	return delta == (int32_t)delta;
}

/* Code that threads may be running is patched with one store, which they see whole: the
 * patched bytes lie within one aligned 8-byte word (atomic on any x86-64), or on Intel
 * within one cache line (Intel's guarantee for unaligned stores, P6 on). The emitter pads
 * so, the line needing padding 8 times less often: chained blocks and their branches run
 * fewer NOPs. */
static unsigned patch_span(void)
{
	static unsigned span;
	if (!span)
		span = cpu_is_intel() ? 64 : 8;
	return span;
}

static bool fits_span(const uint8_t *at, unsigned n)
{
	unsigned span = patch_span();
	return ((uintptr_t)at & (span - 1)) + n <= span;
}

/* Writes n bytes (4 or 5) at `at`, padded for by emit_pad_to_span, with one store: of the
 * aligned word that holds them, else of 4 bytes, or of 8 from `at`. The other bytes of the
 * store do not change (patches are made under the runtime's lock). */
static void store_patch(uint8_t *at, const void *bytes, unsigned n)
{
	unsigned in = (unsigned)((uintptr_t)at & 7);
	if (in + n <= 8) {
		uint64_t *word = (uint64_t *)((uintptr_t)at - in);
		uint64_t value = __atomic_load_n(word, __ATOMIC_RELAXED);
		memcpy((uint8_t *)&value + in, bytes, n);
		__atomic_store_n(word, value, __ATOMIC_RELAXED);
	} else if (n == 4) {
		uint32_t value;
		memcpy(&value, bytes, 4);
		__asm__ volatile("movl %1,%0" : "=m"(*(uint32_t *)at) : "r"(value));
	} else {
		uint64_t value;
		memcpy(&value, at, 8);
		memcpy(&value, bytes, n);
		__asm__ volatile("movq %1,%0" : "=m"(*(uint64_t *)at) : "r"(value));
	}
}

/* One NOP of the padding's length, so that the n bytes `skip` bytes on fit the patch span
 * (store_patch): the padding runs on every execution, and the CPU decodes one instruction
 * faster than several. */
static void emit_pad_to_span(struct emitter *e, unsigned skip, unsigned n)
{
	static const uint8_t nops[7][7] = {{0x90},
					   {0x66, 0x90},
					   {0x0f, 0x1f, 0x00},
					   {0x0f, 0x1f, 0x40, 0x00},
					   {0x0f, 0x1f, 0x44, 0x00, 0x00},
					   {0x66, 0x0f, 0x1f, 0x44, 0x00, 0x00},
					   {0x0f, 0x1f, 0x80, 0x00, 0x00, 0x00, 0x00}};
	unsigned span = patch_span();
	unsigned at = (unsigned)(((uintptr_t)e->cur + skip) & (span - 1));
	if (at + n > span)
		emit_bytes(e, nops[span - at - 1], span - at);
}

void patch_rel32(uint8_t *field, const uint8_t *target)
{
	int32_t rel = (int32_t)(target - (field + 4));
	if (!fits_span(field, 4)) { /* only in code no thread runs yet */
		memcpy(field, &rel, 4);
		return;
	}
	store_patch(field, &rel, 4);
}

/* The 5-byte NOP of a fall-through site, and the jump that can take its place. */
static const uint8_t nop5[FALL_THROUGH_SITE_LENGTH] = {0x0f, 0x1f, 0x44, 0x00,
						       0x00}; /* nopl 0(%rax,%rax) */

uint8_t *emit_fall_through_site(struct emitter *e)
{
	/* (8: the store of 8 bytes from the site, where it is not in one word) */
	emit_pad_to_span(e, 0, patch_span() == 8 ? FALL_THROUGH_SITE_LENGTH : 8);
	uint8_t *site = e->cur;
	emit_bytes(e, nop5, sizeof nop5);
	return site;
}

void patch_fall_through(uint8_t *site, const uint8_t *jump_to)
{
	uint8_t insn[FALL_THROUGH_SITE_LENGTH];
	if (jump_to) {
		int32_t rel = (int32_t)(jump_to - (site + FALL_THROUGH_SITE_LENGTH));
		insn[0] = 0xe9;
		memcpy(insn + 1, &rel, 4);
	} else {
		memcpy(insn, nop5, sizeof nop5);
	}
	store_patch(site, insn, sizeof insn);
}

/* The opcode, then a zero rel32 field: its address. */
static uint8_t *emit_branch_field(struct emitter *e, const uint8_t *opcode, unsigned n)
{
	emit_bytes(e, opcode, n);
	uint8_t *field = e->cur;
	emit_u32(e, 0);
	return field;
}

static uint8_t *emit_rel32_branch(struct emitter *e, const uint8_t *opcode, unsigned n,
				  const uint8_t *target)
{
	/* The rel32 field is re-pointed while other threads may execute the branch: keep it
	 * where patch_rel32 stores it at once. */
	emit_pad_to_span(e, n, 4);
	uint8_t *field = emit_branch_field(e, opcode, n);
	if (!e->overflow)
		patch_rel32(field, target);
	return field;
}

uint8_t *emit_jmp_rel32(struct emitter *e, const uint8_t *target)
{
	static const uint8_t op[] = {0xe9};
	return emit_rel32_branch(e, op, 1, target);
}

uint8_t *emit_jcc_rel32(struct emitter *e, unsigned condition, const uint8_t *target)
{
	const uint8_t op[] = {0x0f, (uint8_t)(0x80 | (condition & 0xf))};
	return emit_rel32_branch(e, op, 2, target);
}

uint8_t *emit_jcc_rel32_local(struct emitter *e, unsigned condition)
{
	const uint8_t op[] = {0x0f, (uint8_t)(0x80 | (condition & 0xf))};
	return emit_branch_field(e, op, sizeof op);
}

uint8_t *emit_jmp_rel32_local(struct emitter *e)
{
	static const uint8_t op[] = {0xe9};
	return emit_branch_field(e, op, sizeof op);
}

void emit_lea_rsp(struct emitter *e, int32_t disp)
{
	if (disp >= -128 && disp <= 127) {
		uint8_t insn[] = {0x48, 0x8d, 0x64, 0x24, (uint8_t)disp};
		emit_bytes(e, insn, sizeof insn);
	} else {
		uint8_t insn[] = {0x48, 0x8d, 0xa4, 0x24};
		emit_bytes(e, insn, sizeof insn);
		emit_u32(e, (uint32_t)disp);
	}
}

/* Whether a 32-bit amount (two's complement) is a sign-extended 8-bit immediate. */
static bool fits_imm8(uint32_t amount)
{
	return (int32_t)amount >= -128 && (int32_t)amount <= 127;
}

/* addq/subq (ModRM reg field 0/5) $amount,%gs:disp32: 65 48 83 /op disp32 imm8, else 81
 * and an imm32. The short form is 3 bytes less in the hottest code and one slot less in
 * the decoded-uop cache (an instruction with both a disp32 and an imm32 takes two). */
static void emit_arith_gs(struct emitter *e, uint8_t op, uint32_t off, uint32_t amount)
{
	bool short_form = fits_imm8(amount);
	uint8_t insn[] = {0x65, 0x48, short_form ? 0x83 : 0x81, (uint8_t)(0x04 | op << 3), 0x25};
	emit_bytes(e, insn, sizeof insn);
	emit_u32(e, off);
	if (short_form)
		emit_u8(e, (uint8_t)amount);
	else
		emit_u32(e, amount);
}

void emit_add_gs(struct emitter *e, uint32_t off, uint32_t amount)
{
	emit_arith_gs(e, 0, off, amount);
}

void emit_sub_gs(struct emitter *e, uint32_t off, uint32_t amount)
{
	emit_arith_gs(e, 5, off, amount);
}

void emit_add_gs_through(struct emitter *e, int reg, uint32_t off, uint32_t amount)
{
	emit_load_gs(e, reg, off);
	/* lea disp8/disp32(%reg),%reg (a SIB byte where the base is %rsp's or %r12's number) */
	bool short_form = fits_imm8(amount);
	uint8_t lea[] = {(uint8_t)(0x48 | (reg >= 8 ? 0x05 : 0)), 0x8d,
			 (uint8_t)((short_form ? 0x40 : 0x80) | ((reg & 7) << 3) | (reg & 7)),
			 0x24};
	emit_bytes(e, lea, (reg & 7) == 4 ? 4 : 3);
	if (short_form)
		emit_u8(e, (uint8_t)amount);
	else
		emit_u32(e, amount);
	emit_store_gs(e, reg, off);
}

void emit_add_gs_keep_flags(struct emitter *e, uint32_t off, uint32_t amount)
{
	emit_store_gs(e, JIT_GPR_RAX, TB_SCRATCH_RAX);
	emit_add_gs_through(e, JIT_GPR_RAX, off, amount);
	emit_load_gs(e, JIT_GPR_RAX, TB_SCRATCH_RAX);
}

void emit_save_flags_in_rax(struct emitter *e)
{
	static const uint8_t save[] = {0x9f, 0x0f, 0x90, 0xc0}; /* lahf; seto %al */
	emit_store_gs(e, JIT_GPR_RAX, TB_SCRATCH_RAX);
	emit_bytes(e, save, sizeof save);
}

void emit_restore_flags_from_rax(struct emitter *e)
{
	static const uint8_t restore[] = {0x04, 0x7f, 0x9e}; /* add $0x7f,%al; sahf */
	emit_bytes(e, restore, sizeof restore);
	emit_load_gs(e, JIT_GPR_RAX, TB_SCRATCH_RAX);
}

void emit_save_flags(struct emitter *e)
{
	emit_save_flags_in_rax(e);
	emit_store_gs(e, JIT_GPR_RAX, TB_SCRATCH_FLAGS);
}

void emit_restore_flags(struct emitter *e)
{
	emit_load_gs(e, JIT_GPR_RAX, TB_SCRATCH_FLAGS);
	emit_restore_flags_from_rax(e);
}

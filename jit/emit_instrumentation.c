#include "emit_instrumentation.h"

#include <string.h>

#include "operand_address.h"
#include "thread_block.h"

static uint32_t slot_offset(int slot)
{
	return TB_CLIENT_SLOTS + 8u * (uint32_t)slot;
}

/* <op> disp32(%rax),<reg>: the three opcode bytes then the displacement. */
static void emit_rax_relative(struct emitter *e, uint8_t opcode, int reg, uint32_t disp)
{
	const uint8_t insn[] = {0x48, opcode, (uint8_t)(0x80 | (reg << 3))};
	emit_bytes(e, insn, sizeof insn);
	emit_u32(e, disp);
}

void emit_table_counter(struct emitter *e, const struct block_table_counter *c, bool flags_live)
{
	static const uint8_t increment_rcx[] = {0x48, 0x8d, 0x49, 0x01}; /* lea 1(%rcx),%rcx */
	static const uint8_t add_one[] = {0x48, 0x83, 0x80};		 /* addq $1,d32(%rax) */
	if (c->index_slot >= 0) {
		static const uint8_t store_imm[] = {0x65, 0x48, 0xc7, 0x04,
						    0x25}; /* movq $i,%gs: */
		emit_bytes(e, store_imm, sizeof store_imm);
		emit_u32(e, slot_offset(c->index_slot));
		emit_u32(e, c->index);
	}
	uint32_t disp = 8u * c->index;
	emit_store_gs(e, JIT_GPR_RAX, TB_SCRATCH_RAX);
	emit_load_gs(e, JIT_GPR_RAX, slot_offset(c->table_slot));
	if (flags_live) { /* through %rcx: lea adds without touching the flags */
		emit_store_gs(e, JIT_GPR_RCX, TB_SCRATCH_RCX);
		emit_rax_relative(e, 0x8b, JIT_GPR_RCX, disp);
		emit_bytes(e, increment_rcx, sizeof increment_rcx);
		emit_rax_relative(e, 0x89, JIT_GPR_RCX, disp);
		emit_load_gs(e, JIT_GPR_RCX, TB_SCRATCH_RCX);
	} else {
		emit_bytes(e, add_one, sizeof add_one);
		emit_u32(e, disp);
		emit_u8(e, 1);
	}
	emit_load_gs(e, JIT_GPR_RAX, TB_SCRATCH_RAX);
}

void emit_rep_table_counter(struct emitter *e, int table_slot, uint32_t index, bool after)
{
	static const uint8_t add_rcx[] = {0x48, 0x8d, 0x14, 0x0a}; /* lea (%rdx,%rcx),%rdx */
	static const uint8_t add_neg_rcx[] = {0x48, 0x8d, 0x54, 0x0a, 0x01}; /* lea 1(%rdx,%rcx) */
	static const uint8_t not_rcx[] = {0x48, 0xf7, 0xd1};		     /* not %rcx */
	uint32_t disp = 8u * index;
	emit_store_gs(e, JIT_GPR_RAX, TB_SCRATCH_RAX);
	emit_store_gs(e, JIT_GPR_RDX, TB_SCRATCH_REG);
	emit_load_gs(e, JIT_GPR_RAX, slot_offset(table_slot));
	emit_rax_relative(e, 0x8b, JIT_GPR_RDX, disp);
	if (after) {
		emit_bytes(e, not_rcx, sizeof not_rcx);
		emit_bytes(e, add_neg_rcx, sizeof add_neg_rcx);
		emit_bytes(e, not_rcx, sizeof not_rcx);
	} else {
		emit_bytes(e, add_rcx, sizeof add_rcx);
	}
	emit_rax_relative(e, 0x89, JIT_GPR_RDX, disp);
	emit_load_gs(e, JIT_GPR_RDX, TB_SCRATCH_REG);
	emit_load_gs(e, JIT_GPR_RAX, TB_SCRATCH_RAX);
}

/* Instructions whose memory operand may be left untouched in part, so that reading it
 * afterwards could fault where the instruction did not: masked moves (the mask chooses the
 * elements), and AVX-512 instructions under a write mask. */
static bool partial_access(const struct block_insn *bi)
{
	switch (bi->insn.mnemonic) {
	case ZYDIS_MNEMONIC_MASKMOVDQU:
	case ZYDIS_MNEMONIC_MASKMOVQ:
	case ZYDIS_MNEMONIC_VMASKMOVDQU:
	case ZYDIS_MNEMONIC_VMASKMOVPD:
	case ZYDIS_MNEMONIC_VMASKMOVPS:
	case ZYDIS_MNEMONIC_VPMASKMOVD:
	case ZYDIS_MNEMONIC_VPMASKMOVQ:
		return true;
	default:
		return bi->insn.avx.mask.reg != ZYDIS_REGISTER_NONE &&
		       bi->insn.avx.mask.reg != ZYDIS_REGISTER_K0;
	}
}

bool trace_memory_readable_after(const struct block_insn *bi, unsigned operand)
{
	const ZydisDecodedOperand *op = &block_insn_ops(bi)[operand];
	bool vsib = op->mem.index >= ZYDIS_REGISTER_XMM0 && op->mem.index <= ZYDIS_REGISTER_ZMM31;
	return data_operand(op) && op->size && !vsib && jit_insn_accesses_memory(&bi->insn) &&
	       !jit_insn_is_rep_string(&bi->insn) && !partial_access(bi);
}

void emit_trace_header(struct emitter *e, const struct block_trace *tr)
{
	static const uint8_t store_word[] = {0x48, 0xc7, 0x00}; /* movq $imm32,(%rax) */
	static const uint8_t advance[] = {0x48, 0x8d, 0x80};	/* lea d32(%rax),%rax */
	emit_store_gs(e, JIT_GPR_RAX, TB_SCRATCH_RAX);
	emit_load_gs(e, JIT_GPR_RAX, slot_offset(tr->buffer_slot));
	emit_bytes(e, store_word, sizeof store_word);
	emit_u32(e, tr->word);
	emit_bytes(e, advance, sizeof advance);
	emit_u32(e, tr->bytes);
	emit_store_gs(e, JIT_GPR_RAX, slot_offset(tr->buffer_slot));
	emit_load_gs(e, JIT_GPR_RAX, TB_SCRATCH_RAX);
}

uint8_t *emit_trace_skip_switch(struct emitter *e, const struct block_trace *tr, bool flags_live)
{
	if (!flags_live) {
		static const uint8_t cmp_zero[] = {0x65, 0x48, 0x83, 0x3c,
						   0x25}; /* cmpq $0,%gs:d32 */
		emit_bytes(e, cmp_zero, sizeof cmp_zero);
		emit_u32(e, slot_offset(tr->skip_slot));
		emit_u8(e, 0);
		return emit_jcc_rel32_local(e, 0x5 /* nz */);
	}
	emit_store_gs(e, JIT_GPR_RCX, TB_SCRATCH_RCX);
	emit_load_gs(e, JIT_GPR_RCX, slot_offset(tr->skip_slot));
	emit_u8(e, 0xe3); /* jrcxz over the jmp to the copy */
	uint8_t *over = e->cur;
	emit_u8(e, 0);
	uint8_t *field = emit_jmp_rel32_local(e);
	if (!e->overflow)
		*over = (uint8_t)(e->cur - (over + 1));
	emit_load_gs(e, JIT_GPR_RCX, TB_SCRATCH_RCX);
	return field;
}

void emit_trace_skip_entry(struct emitter *e, bool flags_live)
{
	if (flags_live)
		emit_load_gs(e, JIT_GPR_RCX, TB_SCRATCH_RCX);
}

/* mov %rcx,d32(%rax) with %rax = the buffer slot's value: d32 is the store's offset from
 * the record's start, which lies `bytes` before the advanced buffer pointer. */
static void emit_store_rcx(struct emitter *e, const struct block_trace *tr, uint32_t offset)
{
	static const uint8_t store_rcx[] = {0x48, 0x89, 0x88};
	emit_load_gs(e, JIT_GPR_RAX, slot_offset(tr->buffer_slot));
	emit_bytes(e, store_rcx, sizeof store_rcx);
	emit_u32(e, offset - tr->bytes);
}

static void emit_trace_address(struct emitter *e, const struct block_insn *bi,
			       const struct block_trace *tr, const struct trace_store *s,
			       bool flags_live)
{
	static const uint8_t zero_ecx[] = {0xb9, 0, 0, 0, 0}; /* mov $0,%ecx */
	const ZydisDecodedOperand *op = &block_insn_ops(bi)[s->what];
	/* Only an %fs operand's address computation (an add) touches the flags. */
	bool keep_flags = flags_live && op->mem.segment == ZYDIS_REGISTER_FS;
	emit_store_gs(e, JIT_GPR_RCX, TB_SCRATCH_RCX);
	if (keep_flags)
		emit_save_flags(e);
	else
		emit_store_gs(e, JIT_GPR_RAX, TB_SCRATCH_RAX);
	bool vsib = op->mem.index >= ZYDIS_REGISTER_XMM0 && op->mem.index <= ZYDIS_REGISTER_ZMM31;
	if (vsib || !emit_operand_address(e, bi, op, 0))
		emit_bytes(e, zero_ecx, sizeof zero_ecx);
	emit_store_rcx(e, tr, s->offset);
	if (keep_flags)
		emit_restore_flags(e);
	else
		emit_load_gs(e, JIT_GPR_RAX, TB_SCRATCH_RAX);
	emit_load_gs(e, JIT_GPR_RCX, TB_SCRATCH_RCX);
}

static void emit_trace_gpr(struct emitter *e, const struct block_trace *tr,
			   const struct trace_store *s)
{
	emit_store_gs(e, JIT_GPR_RAX, TB_SCRATCH_RAX);
	emit_store_gs(e, JIT_GPR_RCX, TB_SCRATCH_RCX);
	if (s->what == JIT_GPR_RAX)
		emit_load_gs(e, JIT_GPR_RCX, TB_SCRATCH_RAX);
	else if (s->what != JIT_GPR_RCX)
		emit_mov_reg_reg(e, JIT_GPR_RCX, s->what);
	emit_store_rcx(e, tr, s->offset);
	emit_load_gs(e, JIT_GPR_RCX, TB_SCRATCH_RCX);
	emit_load_gs(e, JIT_GPR_RAX, TB_SCRATCH_RAX);
}

static void emit_trace_condition(struct emitter *e, const struct block_trace *tr,
				 const struct trace_store *s)
{
	const uint8_t setcc[] = {0x0f, (uint8_t)(0x90 | s->what), 0x80}; /* setcc d32(%rax) */
	emit_store_gs(e, JIT_GPR_RAX, TB_SCRATCH_RAX);
	emit_load_gs(e, JIT_GPR_RAX, slot_offset(tr->buffer_slot));
	emit_bytes(e, setcc, sizeof setcc);
	emit_u32(e, s->offset - tr->bytes);
	emit_load_gs(e, JIT_GPR_RAX, TB_SCRATCH_RAX);
}

/* Loads the operand's first 8, 4, 2 or 1 bytes (zero-extended) from the address the record
 * holds at s->from, after the instruction: its own access succeeded, so this one cannot
 * fault. Flag-free. */
static void emit_trace_memory(struct emitter *e, const struct block_insn *bi,
			      const struct block_trace *tr, const struct trace_store *s)
{
	static const uint8_t load_rcx[] = {0x48, 0x8b, 0x88}; /* mov d32(%rax),%rcx */
	static const uint8_t load8[] = {0x48, 0x8b, 0x09};    /* mov (%rcx),%rcx */
	static const uint8_t load4[] = {0x8b, 0x09};	      /* mov (%rcx),%ecx */
	static const uint8_t load2[] = {0x0f, 0xb7, 0x09};    /* movzwl (%rcx),%ecx */
	static const uint8_t load1[] = {0x0f, 0xb6, 0x09};    /* movzbl (%rcx),%ecx */
	unsigned bytes = block_insn_ops(bi)[s->what].size / 8;
	emit_store_gs(e, JIT_GPR_RAX, TB_SCRATCH_RAX);
	emit_store_gs(e, JIT_GPR_RCX, TB_SCRATCH_RCX);
	emit_load_gs(e, JIT_GPR_RAX, slot_offset(tr->buffer_slot));
	emit_bytes(e, load_rcx, sizeof load_rcx);
	emit_u32(e, s->from - tr->bytes);
	if (bytes >= 8)
		emit_bytes(e, load8, sizeof load8);
	else if (bytes >= 4)
		emit_bytes(e, load4, sizeof load4);
	else if (bytes >= 2)
		emit_bytes(e, load2, sizeof load2);
	else
		emit_bytes(e, load1, sizeof load1);
	emit_store_rcx(e, tr, s->offset);
	emit_load_gs(e, JIT_GPR_RCX, TB_SCRATCH_RCX);
	emit_load_gs(e, JIT_GPR_RAX, TB_SCRATCH_RAX);
}

void emit_trace_stores(struct emitter *e, const struct block_insn *bi, const struct block_trace *tr,
		       bool after, bool flags_live)
{
	for (int k = 0; k < bi->trace_store_count; k++) {
		const struct trace_store *s = &bi->trace_stores[k];
		if (s->after != after)
			continue;
		switch (s->kind) {
		case TRACE_STORE_ADDRESS:
			emit_trace_address(e, bi, tr, s, flags_live);
			break;
		case TRACE_STORE_GPR:
			emit_trace_gpr(e, tr, s);
			break;
		case TRACE_STORE_CONDITION:
			emit_trace_condition(e, tr, s);
			break;
		case TRACE_STORE_MEMORY:
			emit_trace_memory(e, bi, tr, s);
			break;
		}
	}
}

uint32_t trace_stores_room(const struct block_insn *bi)
{
	return 96u * (uint32_t)bi->trace_store_count;
}

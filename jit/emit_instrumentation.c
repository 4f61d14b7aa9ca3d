#include "emit_instrumentation.h"

#include <cpuid.h>
#include <string.h>

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

/* Operands that name memory without accessing it as data. */
static bool accesses_memory(const ZydisDecodedInstruction *insn)
{
	switch (insn->meta.category) {
	case ZYDIS_CATEGORY_NOP:
	case ZYDIS_CATEGORY_PREFETCH:
	case ZYDIS_CATEGORY_WIDENOP:
		return false;
	default:
		break;
	}
	switch (insn->mnemonic) {
	case ZYDIS_MNEMONIC_CLFLUSH:
	case ZYDIS_MNEMONIC_CLFLUSHOPT:
	case ZYDIS_MNEMONIC_CLWB:
	case ZYDIS_MNEMONIC_CLDEMOTE:
		return false;
	default:
		return true;
	}
}

static bool marked_operand(const ZydisDecodedOperand *op)
{
	return op->type == ZYDIS_OPERAND_TYPE_MEMORY && op->mem.type == ZYDIS_MEMOP_TYPE_MEM &&
	       (op->actions & (ZYDIS_OPERAND_ACTION_MASK_READ | ZYDIS_OPERAND_ACTION_MASK_WRITE)) &&
	       op->mem.segment != ZYDIS_REGISTER_GS;
}

bool memory_marks_wanted(const struct block_insn *bi)
{
	if (jit_insn_is_rep_string(&bi->insn) || !accesses_memory(&bi->insn))
		return false;
	for (unsigned i = 0; i < bi->insn.operand_count; i++)
		if (marked_operand(&block_insn_ops(bi)[i]))
			return true;
	return false;
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
	return marked_operand(op) && op->size && !vsib && accesses_memory(&bi->insn) &&
	       !jit_insn_is_rep_string(&bi->insn) && !partial_access(bi);
}

/* Pushes write below the stack pointer they name. */
static int64_t implicit_displacement(const struct block_insn *bi, const ZydisDecodedOperand *op)
{
	if (op->visibility != ZYDIS_OPERAND_VISIBILITY_HIDDEN ||
	    op->mem.base != ZYDIS_REGISTER_RSP || !(op->actions & ZYDIS_OPERAND_ACTION_MASK_WRITE))
		return 0;
	switch (bi->insn.mnemonic) {
	case ZYDIS_MNEMONIC_PUSH:
	case ZYDIS_MNEMONIC_PUSHF:
	case ZYDIS_MNEMONIC_PUSHFQ:
	case ZYDIS_MNEMONIC_CALL:
	case ZYDIS_MNEMONIC_ENTER:
		return -(int64_t)(op->size / 8);
	default:
		return 0;
	}
}

/* Whether the memory operand's base or index is (a part of) reg64. */
static bool names_gpr(const ZydisDecodedOperand *op, ZydisRegister reg64)
{
	return ZydisRegisterGetLargestEnclosing(ZYDIS_MACHINE_MODE_LONG_64, op->mem.base) ==
		   reg64 ||
	       ZydisRegisterGetLargestEnclosing(ZYDIS_MACHINE_MODE_LONG_64, op->mem.index) == reg64;
}

/* lea of the operand's address plus disp into `dest` (a register number), as the app's
 * registers give it. False when no lea can express it. */
static bool encode_lea(const ZydisDecodedOperand *op, int64_t disp, int dest, uint8_t *lea,
		       ZyanUSize *len)
{
	static const ZydisRegister gpr64[16] = {
	    ZYDIS_REGISTER_RAX, ZYDIS_REGISTER_RCX, ZYDIS_REGISTER_RDX, ZYDIS_REGISTER_RBX,
	    ZYDIS_REGISTER_RSP, ZYDIS_REGISTER_RBP, ZYDIS_REGISTER_RSI, ZYDIS_REGISTER_RDI,
	    ZYDIS_REGISTER_R8,	ZYDIS_REGISTER_R9,  ZYDIS_REGISTER_R10, ZYDIS_REGISTER_R11,
	    ZYDIS_REGISTER_R12, ZYDIS_REGISTER_R13, ZYDIS_REGISTER_R14, ZYDIS_REGISTER_R15};
	ZydisEncoderRequest req;
	memset(&req, 0, sizeof req);
	req.machine_mode = ZYDIS_MACHINE_MODE_LONG_64;
	req.mnemonic = ZYDIS_MNEMONIC_LEA;
	req.operand_count = 2;
	req.operands[0].type = ZYDIS_OPERAND_TYPE_REGISTER;
	req.operands[0].reg.value = gpr64[dest];
	req.operands[1].type = ZYDIS_OPERAND_TYPE_MEMORY;
	req.operands[1].mem.base = op->mem.base;
	req.operands[1].mem.index = op->mem.index;
	req.operands[1].mem.scale = op->mem.index == ZYDIS_REGISTER_NONE ? 0 : op->mem.scale;
	req.operands[1].mem.displacement = disp;
	req.operands[1].mem.size = 8;
	return ZYAN_SUCCESS(ZydisEncoderEncodeInstruction(&req, lea, len));
}

static uint64_t rip_relative_address(const struct block_insn *bi, int64_t disp)
{
	return bi->pc + bi->insn.length + (uint64_t)disp;
}

/* %rcx = the operand's address plus `extra`, from the app's registers (%rax and %rcx are
 * brought back from their scratch slots first when the address is made of them; %rax is
 * clobbered or not). False when no lea can compute it: nothing is emitted then. */
static bool emit_address(struct emitter *e, const struct block_insn *bi,
			 const ZydisDecodedOperand *op, int64_t extra)
{
	int64_t disp = op->mem.disp.value + implicit_displacement(bi, op) + extra;
	if (bi->insn.mnemonic == ZYDIS_MNEMONIC_XLAT) { /* %rbx + %al, which Zydis leaves out */
		static const uint8_t rbx_plus_al[] = {
		    0x0f, 0xb6, 0xc8,	    /* movzbl %al,%ecx */
		    0x48, 0x8d, 0x0c, 0x0b, /* lea (%rbx,%rcx),%rcx */
		};
		emit_load_gs(e, JIT_GPR_RAX, TB_SCRATCH_RAX);
		emit_bytes(e, rbx_plus_al, sizeof rbx_plus_al);
		return true;
	}
	if (op->mem.base == ZYDIS_REGISTER_RIP) {
		emit_movabs(e, JIT_GPR_RCX, rip_relative_address(bi, disp));
		return true;
	}
	uint8_t lea[ZYDIS_MAX_INSTRUCTION_LENGTH];
	ZyanUSize len = sizeof lea;
	if (!encode_lea(op, disp, JIT_GPR_RCX, lea, &len))
		return false;
	/* Only the app registers the address is made of (the others may hold our values). */
	if (names_gpr(op, ZYDIS_REGISTER_RAX))
		emit_load_gs(e, JIT_GPR_RAX, TB_SCRATCH_RAX);
	if (names_gpr(op, ZYDIS_REGISTER_RCX))
		emit_load_gs(e, JIT_GPR_RCX, TB_SCRATCH_RCX);
	emit_bytes(e, lea, (unsigned)len);
	if (op->mem.segment == ZYDIS_REGISTER_FS) {
		static const uint8_t add_fs[] = {0x65, 0x48, 0x03, 0x0c,
						 0x25}; /* add %gs:d32,%rcx */
		emit_bytes(e, add_fs, sizeof add_fs);
		emit_u32(e, TB_APP_FS);
	}
	return true;
}

/* Marks the line of the address in %rcx in the map at the slot: byte 2*line when read,
 * byte 2*line+1 when written. */
static void emit_mark(struct emitter *e, int slot, bool read, bool write)
{
	static const uint8_t line_times_two[] = {
	    0x48, 0xc1, 0xe1, 0x11, /* shl $17,%rcx: drop bits 47..63 */
	    0x48, 0xc1, 0xe9, 0x16, /* shr $22,%rcx: the line, times two */
	    0x48, 0x83, 0xe1, 0xfe, /* and $-2,%rcx */
	};
	static const uint8_t mark_read[] = {0xc6, 0x04, 0x08, 0x01}; /* movb $1,(%rax,%rcx) */
	static const uint8_t mark_write[] = {0xc6, 0x44, 0x08, 0x01, 0x01}; /* movb $1,1(...) */
	emit_bytes(e, line_times_two, sizeof line_times_two);
	emit_load_gs(e, JIT_GPR_RAX, TB_CLIENT_SLOTS + 8u * (uint32_t)slot);
	if (read)
		emit_bytes(e, mark_read, sizeof mark_read);
	if (write)
		emit_bytes(e, mark_write, sizeof mark_write);
}

/* Calls mark(e, op, offset, read, write, arg) for each access to mark: every line of each
 * memory operand from its first byte to its last, one call per 64 bytes and one at the
 * last byte (an unaligned access may cross into one more line); a read and a write of one
 * operand from one address. */
static void for_each_mark(const struct block_insn *bi,
			  void (*mark)(const ZydisDecodedOperand *op, int64_t offset, bool read,
				       bool write, void *arg),
			  void *arg)
{
	for (unsigned i = 0; i < bi->insn.operand_count; i++) {
		const ZydisDecodedOperand *op = &block_insn_ops(bi)[i];
		if (!marked_operand(op))
			continue;
		int64_t bytes = op->size ? op->size / 8 : 1;
		bool read = op->actions & ZYDIS_OPERAND_ACTION_MASK_READ;
		bool write = op->actions & ZYDIS_OPERAND_ACTION_MASK_WRITE;
		for (int64_t at = 0;; at += 64) {
			int64_t offset = at < bytes - 1 ? at : bytes - 1;
			mark(op, offset, read, write, arg);
			if (offset == bytes - 1)
				break;
		}
	}
}

struct marking {
	struct emitter *e;
	const struct block_insn *bi;
	int slot;
	const struct held_marks *held;
	/* the line a held mark of a RIP-relative operand last marked (else ~0) */
	uint64_t constant_line;
};

static void emit_one_mark(const ZydisDecodedOperand *op, int64_t offset, bool read, bool write,
			  void *arg)
{
	struct marking *m = arg;
	if (emit_address(m->e, m->bi, op, offset))
		emit_mark(m->e, m->slot, read, write);
}

void emit_memory_marks(struct emitter *e, const struct block_insn *bi, int slot, bool flags_live)
{
	emit_store_gs(e, JIT_GPR_RCX, TB_SCRATCH_RCX);
	if (flags_live)
		emit_save_flags(e);
	else
		emit_store_gs(e, JIT_GPR_RAX, TB_SCRATCH_RAX);
	struct marking m = {e, bi, slot, NULL, ~0ull};
	for_each_mark(bi, emit_one_mark, &m);
	if (flags_live)
		emit_restore_flags(e);
	else
		emit_load_gs(e, JIT_GPR_RAX, TB_SCRATCH_RAX);
	emit_load_gs(e, JIT_GPR_RCX, TB_SCRATCH_RCX);
}

static bool has_bmi2(void)
{
	unsigned eax, ebx, ecx, edx;
	return __get_cpuid_count(7, 0, &eax, &ebx, &ecx, &edx) && (ebx & (1u << 8));
}

static int gpr_id(ZydisRegister r)
{
	return ZydisRegisterGetId(ZydisRegisterGetLargestEnclosing(ZYDIS_MACHINE_MODE_LONG_64, r));
}

static uint16_t gpr_bit(ZydisRegister r)
{
	int id = r == ZYDIS_REGISTER_NONE ? -1 : gpr_id(r);
	return id >= 0 && id < 16 ? (uint16_t)(1u << id) : 0;
}

bool held_marks_choose(const struct jit_block *b, struct held_marks *h)
{
	/* %rax and %rcx are the inserted code's scratch registers, %rsp the stack. */
	static const int candidates[] = {JIT_GPR_R11, JIT_GPR_R10, JIT_GPR_R9,	JIT_GPR_R8,
					 JIT_GPR_R15, JIT_GPR_R14, JIT_GPR_R13, JIT_GPR_R12,
					 JIT_GPR_RBX, JIT_GPR_RBP, JIT_GPR_RSI, JIT_GPR_RDI,
					 JIT_GPR_RDX};
	static int bmi2 = -1;
	if (bmi2 < 0)
		bmi2 = has_bmi2();
	if (!bmi2)
		return false;
	uint16_t used = 0;
	for (size_t i = 0; i < b->length; i++) {
		const struct block_insn *bi = &b->insns[i];
		const ZydisDecodedOperand *ops = block_insn_ops(bi);
		for (unsigned k = 0; k < bi->insn.operand_count; k++) {
			if (ops[k].type == ZYDIS_OPERAND_TYPE_REGISTER)
				used |= gpr_bit(ops[k].reg.value);
			else if (ops[k].type == ZYDIS_OPERAND_TYPE_MEMORY)
				used |= gpr_bit(ops[k].mem.base) | gpr_bit(ops[k].mem.index);
		}
	}
	int chosen[TB_HELD_REG_COUNT], n = 0;
	for (unsigned i = 0; i < sizeof candidates / sizeof candidates[0] && n < TB_HELD_REG_COUNT;
	     i++)
		if (!(used & (1u << candidates[i])))
			chosen[n++] = candidates[i];
	if (n < TB_HELD_REG_COUNT)
		return false;
	*h = (struct held_marks){
	    .regs = (uint16_t)((1u << chosen[0]) | (1u << chosen[1]) | (1u << chosen[2])),
	    .line = (int8_t)chosen[0],
	    .shift = (int8_t)chosen[1],
	    .base = (int8_t)chosen[2],
	};
	return true;
}

/* The slots of TB_HELD_REGS in register order, as held_marks.regs lists them. */
static void for_each_held(struct emitter *e, const struct held_marks *h,
			  void (*move)(struct emitter *e, int reg, uint32_t tb_offset))
{
	uint32_t slot = TB_HELD_REGS;
	for (int r = 0; r < 16; r++)
		if (h->regs & (1u << r)) {
			move(e, r, slot);
			slot += 8;
		}
}

void emit_held_marks_begin(struct emitter *e, const struct held_marks *h, int slot)
{
	for_each_held(e, h, emit_store_gs);
	/* mov $23,%shift (32-bit: zero-extended) */
	if (h->shift >= 8)
		emit_u8(e, 0x41);
	emit_u8(e, (uint8_t)(0xb8 + (h->shift & 7)));
	emit_u32(e, 64 - 41);
	emit_load_gs(e, h->base, TB_CLIENT_SLOTS + 8u * (uint32_t)slot);
}

void emit_held_marks_end(struct emitter *e, const struct held_marks *h)
{
	for_each_held(e, h, emit_load_gs);
}

/* A three-byte VEX prefix (map 0F38 or 0F3A, W1, 64-bit operands), opcode and register
 * ModRM: reg and rm registers, vvvv the third (0 when unused: stored inverted, as 1111), pp
 * the implied prefix. */
static void emit_vex_w1(struct emitter *e, uint8_t map, uint8_t pp, int vvvv, uint8_t opcode,
			int reg, int rm)
{
	emit_u8(e, 0xc4);
	emit_u8(e, (uint8_t)((!(reg & 8) << 7) | (1 << 6) | (!(rm & 8) << 5) | map));
	emit_u8(e, (uint8_t)(0x80 | ((~vvvv & 15) << 3) | pp));
	emit_u8(e, opcode);
	emit_u8(e, (uint8_t)(0xc0 | ((reg & 7) << 3) | (rm & 7)));
}

/* line = address bits 6..46, from the address in it, with no flag touched: rotated right
 * by 6 (rorx), then shifted left and right by 23 (shlx, shrx: bits 47..63 and the rotated
 * low bits drop out). */
static void emit_held_line(struct emitter *e, const struct held_marks *h)
{
	enum { MAP_0F38 = 2, MAP_0F3A = 3, PP_66 = 1, PP_F2 = 3 };
	emit_vex_w1(e, MAP_0F3A, PP_F2, 0, 0xf0, h->line, h->line); /* rorx */
	emit_u8(e, 6);
	emit_vex_w1(e, MAP_0F38, PP_66, h->shift, 0xf7, h->line, h->line); /* shlx */
	emit_vex_w1(e, MAP_0F38, PP_F2, h->shift, 0xf7, h->line, h->line); /* shrx */
}

/* movb $1,kind(%base,%line,2) */
static void emit_held_store(struct emitter *e, const struct held_marks *h, uint8_t kind)
{
	uint8_t rex = (uint8_t)(0x40 | ((h->line & 8) >> 2) | ((h->base & 8) >> 3));
	if (rex != 0x40)
		emit_u8(e, rex);
	const uint8_t store[] = {0xc6, 0x44, (uint8_t)(0x40 | ((h->line & 7) << 3) | (h->base & 7)),
				 kind, 1};
	emit_bytes(e, store, sizeof store);
}

/* movb $1,d32(%base), or through %line when the offset does not fit in 32 bits. */
static void emit_held_constant_store(struct marking *m, uint64_t offset)
{
	const struct held_marks *h = m->held;
	if (offset > INT32_MAX) {
		emit_movabs(m->e, h->line, offset);
		uint8_t rex = (uint8_t)(0x40 | ((h->line & 8) >> 2) | ((h->base & 8) >> 3));
		if (rex != 0x40)
			emit_u8(m->e, rex);
		/* movb $1,(%base,%line) */
		const uint8_t store[] = {0xc6, 0x04,
					 (uint8_t)(((h->line & 7) << 3) | (h->base & 7)), 1};
		if ((h->base & 7) == 5) { /* %rbp, %r13: no base without a displacement */
			const uint8_t with_disp[] = {0xc6, 0x44, store[2], 0, 1};
			emit_bytes(m->e, with_disp, sizeof with_disp);
		} else {
			emit_bytes(m->e, store, sizeof store);
		}
		return;
	}
	if (h->base & 8)
		emit_u8(m->e, 0x41);
	emit_u8(m->e, 0xc6);
	emit_u8(m->e, (uint8_t)(0x80 | (h->base & 7))); /* mod 10: d32 */
	if ((h->base & 7) == 4)
		emit_u8(m->e, 0x24); /* SIB: %rsp or %r12 as base */
	emit_u32(m->e, (uint32_t)offset);
	emit_u8(m->e, 1);
}

static void emit_held_mark(const ZydisDecodedOperand *op, int64_t offset, bool read, bool write,
			   void *arg)
{
	struct marking *m = arg;
	int64_t disp = op->mem.disp.value + implicit_displacement(m->bi, op) + offset;
	if (op->mem.base == ZYDIS_REGISTER_RIP) { /* the line is known now */
		uint64_t line = (rip_relative_address(m->bi, disp) << 17) >> 23;
		if (line == m->constant_line)
			return; /* (an operand's last byte in the line of its first) */
		m->constant_line = line;
		if (read)
			emit_held_constant_store(m, 2 * line);
		if (write)
			emit_held_constant_store(m, 2 * line + 1);
		return;
	}
	uint8_t lea[ZYDIS_MAX_INSTRUCTION_LENGTH];
	ZyanUSize len = sizeof lea;
	if (!encode_lea(op, disp, m->held->line, lea, &len))
		return;
	emit_bytes(m->e, lea, (unsigned)len);
	emit_held_line(m->e, m->held);
	if (read)
		emit_held_store(m->e, m->held, 0);
	if (write)
		emit_held_store(m->e, m->held, 1);
}

static void check_held_mark(const ZydisDecodedOperand *op, int64_t offset, bool read, bool write,
			    void *arg)
{
	(void)offset;
	(void)read;
	(void)write;
	if (op->mem.segment == ZYDIS_REGISTER_FS)
		*(bool *)arg = false;
}

bool emit_held_memory_marks(struct emitter *e, const struct held_marks *h,
			    const struct block_insn *bi)
{
	bool possible = bi->insn.mnemonic != ZYDIS_MNEMONIC_XLAT;
	for_each_mark(bi, check_held_mark, &possible);
	if (!possible)
		return false;
	struct marking m = {e, bi, -1, h, ~0ull};
	for_each_mark(bi, emit_held_mark, &m);
	return true;
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
	if (vsib || !emit_address(e, bi, op, 0))
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

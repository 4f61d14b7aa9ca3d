#include "memory_marks.h"

#include "config.h"
#include "cpu_id.h"
#include "operand_address.h"
#include "thread_block.h"

/* The bits of an address that make its line: 6..46. */
#define LINE_BITS_MASK 0x00007fffffffffc0ull

bool memory_marks_wanted(const struct block_insn *bi)
{
	if (jit_insn_is_rep_string(&bi->insn) || !jit_insn_accesses_memory(&bi->insn))
		return false;
	for (unsigned i = 0; i < bi->insn.operand_count; i++)
		if (data_operand(&block_insn_ops(bi)[i]))
			return true;
	return false;
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

/* Calls mark(op, offset, read, write, arg) for each access to mark: every line of each
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
		if (!data_operand(op))
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
	if (emit_operand_address(m->e, m->bi, op, offset))
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

/* Whether pext runs in one cycle's throughput: on Intel's BMI2 CPUs and AMD's from Zen 3
 * (family 19h) on; AMD's before microcode it, tens of cycles a bit of its mask. */
static bool use_pext(void)
{
	bool fast = cpu_is_intel() || (cpu_is_amd() && cpu_family() >= 0x19);
	return fast && jit_config.held_marks == HELD_MARKS_FAST;
}

static uint16_t gpr_bit(ZydisRegister r)
{
	int id = gpr_number(r);
	return id >= 0 ? (uint16_t)(1u << id) : 0;
}

bool held_marks_choose(const struct jit_block *b, struct held_marks *h)
{
	/* %rax and %rcx are the inserted code's scratch registers, %rsp the stack. */
	static const int candidates[] = {JIT_GPR_R11, JIT_GPR_R10, JIT_GPR_R9,	JIT_GPR_R8,
					 JIT_GPR_R15, JIT_GPR_R14, JIT_GPR_R13, JIT_GPR_R12,
					 JIT_GPR_RBX, JIT_GPR_RBP, JIT_GPR_RSI, JIT_GPR_RDI,
					 JIT_GPR_RDX};
	if (!cpu_has_bmi2() || jit_config.held_marks == HELD_MARKS_NEVER)
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
	    .line_bits = (int8_t)chosen[1],
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
	if (use_pext()) {
		emit_movabs(e, h->line_bits, LINE_BITS_MASK);
	} else { /* mov $23,%line_bits (32-bit: zero-extended) */
		if (h->line_bits >= 8)
			emit_u8(e, 0x41);
		emit_u8(e, (uint8_t)(0xb8 + (h->line_bits & 7)));
		emit_u32(e, 64 - 41);
	}
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

/* line = address bits 6..46, from the address in it, with no flag touched: gathered by
 * pext under the mask, or rotated right by 6 (rorx), then shifted left and right by 23
 * (shlx, shrx: bits 47..63 and the rotated low bits drop out). */
static void emit_held_line(struct emitter *e, const struct held_marks *h)
{
	enum { MAP_0F38 = 2, MAP_0F3A = 3, PP_66 = 1, PP_F3 = 2, PP_F2 = 3 };
	if (use_pext()) {
		emit_vex_w1(e, MAP_0F38, PP_F3, h->line, 0xf5, h->line, h->line_bits); /* pext */
		return;
	}
	emit_vex_w1(e, MAP_0F3A, PP_F2, 0, 0xf0, h->line, h->line); /* rorx */
	emit_u8(e, 6);
	emit_vex_w1(e, MAP_0F38, PP_66, h->line_bits, 0xf7, h->line, h->line); /* shlx */
	emit_vex_w1(e, MAP_0F38, PP_F2, h->line_bits, 0xf7, h->line, h->line); /* shrx */
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

static void emit_held_stores(struct emitter *e, const struct held_marks *h, bool read, bool write)
{
	if (read)
		emit_held_store(e, h, 0);
	if (write)
		emit_held_store(e, h, 1);
}

/* movb $1,d32(%base): a map offset known at translation (under 2 GiB). */
static void emit_held_constant_store(struct emitter *e, const struct held_marks *h, uint32_t offset)
{
	if (h->base & 8)
		emit_u8(e, 0x41);
	emit_u8(e, 0xc6);
	emit_u8(e, (uint8_t)(0x80 | (h->base & 7))); /* mod 10: d32 */
	if ((h->base & 7) == 4)
		emit_u8(e, 0x24); /* SIB: %rsp or %r12 as base */
	emit_u32(e, offset);
	emit_u8(e, 1);
}

static void emit_held_mark(const ZydisDecodedOperand *op, int64_t offset, bool read, bool write,
			   void *arg)
{
	struct marking *m = arg;
	int64_t disp = operand_displacement(m->bi, op) + offset;
	if (op->mem.base == ZYDIS_REGISTER_RIP) { /* the line is known now */
		uint64_t line = (rip_relative_address(m->bi, disp) << 17) >> 23;
		if (line == m->constant_line)
			return; /* (an operand's last byte in the line of its first) */
		m->constant_line = line;
		if (2 * line + 1 > INT32_MAX) { /* (PIE code) the line through %line */
			emit_movabs(m->e, m->held->line, line);
			emit_held_stores(m->e, m->held, read, write);
			return;
		}
		if (read)
			emit_held_constant_store(m->e, m->held, (uint32_t)(2 * line));
		if (write)
			emit_held_constant_store(m->e, m->held, (uint32_t)(2 * line + 1));
		return;
	}
	uint8_t lea[ZYDIS_MAX_INSTRUCTION_LENGTH];
	ZyanUSize len = sizeof lea;
	if (!encode_operand_lea(op, disp, m->held->line, lea, &len))
		return;
	emit_bytes(m->e, lea, (unsigned)len);
	emit_held_line(m->e, m->held);
	emit_held_stores(m->e, m->held, read, write);
}

bool emit_held_memory_marks(struct emitter *e, const struct held_marks *h,
			    const struct block_insn *bi)
{
	if (bi->insn.mnemonic == ZYDIS_MNEMONIC_XLAT)
		return false;
	for (unsigned i = 0; i < bi->insn.operand_count; i++)
		if (data_operand(&block_insn_ops(bi)[i]) &&
		    block_insn_ops(bi)[i].mem.segment == ZYDIS_REGISTER_FS)
			return false;
	struct marking m = {e, bi, -1, h, ~0ull};
	for_each_mark(bi, emit_held_mark, &m);
	return true;
}

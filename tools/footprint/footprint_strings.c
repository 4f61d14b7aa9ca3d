/* The lines a REP string instruction touches: its iterations are known before it runs
 * (rcx), except for REPE/REPNE CMPS and SCAS, which stop at the first (mis)match: those
 * are found by doing the comparisons on a copy of the app's memory first. */
#include <string.h>

#include "footprint_internal.h"

enum string_kind { MOVS, STOS, LODS, CMPS, SCAS, INS, OUTS, OTHER };
enum { REP = 1, REPE = 2, REPNE = 3 };

/* The instruction's shape, packed into the callout's argument. */
struct string_shape {
	enum string_kind kind;
	unsigned size; /* bytes per element */
	int rep;
	bool narrow; /* 32-bit addresses and count */
};

static enum string_kind kind_of(ZydisMnemonic m)
{
	switch (m) {
	case ZYDIS_MNEMONIC_MOVSB:
	case ZYDIS_MNEMONIC_MOVSW:
	case ZYDIS_MNEMONIC_MOVSD:
	case ZYDIS_MNEMONIC_MOVSQ:
		return MOVS;
	case ZYDIS_MNEMONIC_STOSB:
	case ZYDIS_MNEMONIC_STOSW:
	case ZYDIS_MNEMONIC_STOSD:
	case ZYDIS_MNEMONIC_STOSQ:
		return STOS;
	case ZYDIS_MNEMONIC_LODSB:
	case ZYDIS_MNEMONIC_LODSW:
	case ZYDIS_MNEMONIC_LODSD:
	case ZYDIS_MNEMONIC_LODSQ:
		return LODS;
	case ZYDIS_MNEMONIC_CMPSB:
	case ZYDIS_MNEMONIC_CMPSW:
	case ZYDIS_MNEMONIC_CMPSD:
	case ZYDIS_MNEMONIC_CMPSQ:
		return CMPS;
	case ZYDIS_MNEMONIC_SCASB:
	case ZYDIS_MNEMONIC_SCASW:
	case ZYDIS_MNEMONIC_SCASD:
	case ZYDIS_MNEMONIC_SCASQ:
		return SCAS;
	case ZYDIS_MNEMONIC_INSB:
	case ZYDIS_MNEMONIC_INSW:
	case ZYDIS_MNEMONIC_INSD:
		return INS;
	case ZYDIS_MNEMONIC_OUTSB:
	case ZYDIS_MNEMONIC_OUTSW:
	case ZYDIS_MNEMONIC_OUTSD:
		return OUTS;
	default:
		return OTHER;
	}
}

void *footprint_string_arg(const ZydisDecodedInstruction *insn)
{
	unsigned log_size = insn->operand_width == 64	? 3
			    : insn->operand_width == 32 ? 2
			    : insn->operand_width == 16 ? 1
							: 0;
	int rep = (insn->attributes & ZYDIS_ATTRIB_HAS_REPE)	? REPE
		  : (insn->attributes & ZYDIS_ATTRIB_HAS_REPNE) ? REPNE
								: REP;
	uintptr_t packed = log_size | (uintptr_t)kind_of(insn->mnemonic) << 2 |
			   (uintptr_t)rep << 5 | (uintptr_t)(insn->address_width == 32) << 7;
	return (void *)packed;
}

static struct string_shape unpack(const void *arg)
{
	uintptr_t p = (uintptr_t)arg;
	return (struct string_shape){
	    .size = 1u << (p & 3),
	    .kind = (enum string_kind)((p >> 2) & 7),
	    .rep = (int)((p >> 5) & 3),
	    .narrow = (p >> 7) & 1,
	};
}

/* A page-sized window on app memory, so that a long scan costs one copy per page. */
struct window {
	uint64_t page; /* ~0: empty */
	bool readable;
	uint8_t bytes[4096];
};

static bool element_at(struct window *w, uint64_t addr, unsigned size, uint64_t *value)
{
	*value = 0;
	for (unsigned i = 0; i < size; i++) {
		uint64_t page = (addr + i) & ~4095ull;
		if (w->page != page) {
			w->page = page;
			w->readable = jit_read_app_memory(w->bytes, page, sizeof w->bytes);
		}
		if (!w->readable)
			return false;
		*value |= (uint64_t)w->bytes[(addr + i) & 4095] << (8 * i);
	}
	return true;
}

/* Iterations a REPE/REPNE CMPS or SCAS will run out of at most n (counting the one
 * that faults, if some element cannot be read). */
static uint64_t compared_iterations(const struct string_shape *s, uint64_t n, uint64_t si,
				    uint64_t di, uint64_t acc, int64_t step)
{
	struct window *a = &(struct window){.page = ~0ull}; /* (on the runtime stack) */
	struct window *b = &(struct window){.page = ~0ull};
	uint64_t mask = s->size == 8 ? ~0ull : (1ull << (8 * s->size)) - 1;
	for (uint64_t k = 0; k < n; k++) {
		uint64_t left = acc & mask, right;
		if ((s->kind == CMPS && !element_at(a, si + (uint64_t)step * k, s->size, &left)) ||
		    !element_at(b, di + (uint64_t)step * k, s->size, &right))
			return k + 1;
		bool equal = left == right;
		if (equal != (s->rep == REPE))
			return k + 1;
	}
	return n;
}

static void mark_elements(uint8_t *map, uint64_t start, uint64_t n, unsigned size, bool down,
			  bool write)
{
	if (down)
		footprint_mark(map, start - (n - 1) * size, start + size, write);
	else
		footprint_mark(map, start, start + n * size, write);
}

void footprint_rep_string(const struct jit_callout *c)
{
	struct string_shape s = unpack(c->arg);
	if (s.kind == OTHER)
		return;
	uint8_t *map = (uint8_t *)jit_thread_slot_get(c->thread, footprint_slot);
	struct jit_regs r;
	jit_thread_get_regs(c->thread, &r);
	uint64_t narrow = s.narrow ? 0xffffffffull : ~0ull;
	uint64_t n = r.gpr[JIT_GPR_RCX] & narrow;
	uint64_t si = r.gpr[JIT_GPR_RSI] & narrow, di = r.gpr[JIT_GPR_RDI] & narrow;
	bool down = r.rflags & (1u << 10); /* DF */
	if (!n)
		return;
	if ((s.kind == CMPS || s.kind == SCAS) && s.rep != REP)
		n = compared_iterations(&s, n, si, di, r.gpr[JIT_GPR_RAX],
					down ? -(int64_t)s.size : (int64_t)s.size);
	if (s.kind == MOVS || s.kind == LODS || s.kind == CMPS || s.kind == OUTS)
		mark_elements(map, si, n, s.size, down, false);
	if (s.kind == CMPS || s.kind == SCAS)
		mark_elements(map, di, n, s.size, down, false);
	if (s.kind == MOVS || s.kind == STOS || s.kind == INS)
		mark_elements(map, di, n, s.size, down, true);
}

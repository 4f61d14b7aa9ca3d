#include "nondet.h"

#include "instrument.h"

/* code = kind | dest register << 8 | operand width in bits << 16 */
static uintptr_t code_of(enum nondet_kind kind, int reg, unsigned width)
{
	return (uintptr_t)kind | (uintptr_t)(reg & 0xff) << 8 | (uintptr_t)width << 16;
}
static enum nondet_kind kind_of(uintptr_t code)
{
	return (enum nondet_kind)(code & 0xff);
}
static int reg_of(uintptr_t code)
{
	return (int)((code >> 8) & 0xff);
}
static unsigned width_of(uintptr_t code)
{
	return (unsigned)(code >> 16);
}

uintptr_t nondet_classify(const struct jit_block *b, size_t i)
{
	const ZydisDecodedInstruction *insn = jit_block_insn(b, i);
	switch (insn->mnemonic) {
	case ZYDIS_MNEMONIC_RDTSC:
		return code_of(NONDET_RDTSC, 0, 0);
	case ZYDIS_MNEMONIC_RDTSCP:
		return code_of(NONDET_RDTSCP, 0, 0);
	case ZYDIS_MNEMONIC_CPUID:
		return code_of(NONDET_CPUID, 0, 0);
	case ZYDIS_MNEMONIC_XGETBV:
		return code_of(NONDET_XGETBV, 0, 0);
	case ZYDIS_MNEMONIC_RDRAND:
	case ZYDIS_MNEMONIC_RDSEED:
	case ZYDIS_MNEMONIC_RDPID: {
		enum nondet_kind k = insn->mnemonic == ZYDIS_MNEMONIC_RDRAND   ? NONDET_RDRAND
				     : insn->mnemonic == ZYDIS_MNEMONIC_RDSEED ? NONDET_RDSEED
									       : NONDET_RDPID;
		ZydisRegister r = jit_block_operands(b, i)[0].reg.value;
		int id = ZydisRegisterGetId(
		    ZydisRegisterGetLargestEnclosing(ZYDIS_MACHINE_MODE_LONG_64, r));
		return code_of(k, id, insn->operand_width);
	}
	default:
		return 0;
	}
}

void nondet_instrument_block(struct jit_block *b, jit_callout_fn fn)
{
	for (size_t i = 0; i < jit_block_length(b); i++) {
		uintptr_t code = nondet_classify(b, i);
		if (!code)
			continue;
		jit_insert_callout(b, i, fn, (void *)code);
		jit_suppress_insn(b, i);
	}
}

/* Writes a result register the way the instruction does: 32-bit writes zero the upper
 * half, 16-bit writes keep the rest. */
static void write_reg(struct jit_thread *t, int reg, uint64_t value, unsigned width)
{
	uint64_t old = jit_thread_gpr(t, reg);
	if (width == 16)
		value = (old & ~0xffffull) | (value & 0xffff);
	else if (width == 32)
		value &= 0xffffffffull;
	jit_thread_set_gpr(t, reg, value);
}

enum { FLAG_CF = 1, FLAG_PF = 4, FLAG_AF = 0x10, FLAG_ZF = 0x40, FLAG_SF = 0x80, FLAG_OF = 0x800 };

static void apply(struct jit_thread *t, uintptr_t code, const struct nondet_result *r)
{
	switch (kind_of(code)) {
	case NONDET_RDTSCP:
		jit_thread_set_gpr(t, JIT_GPR_RCX, r->rcx & 0xffffffffull);
		/* fall through */
	case NONDET_RDTSC:
	case NONDET_XGETBV:
		jit_thread_set_gpr(t, JIT_GPR_RAX, r->rax & 0xffffffffull);
		jit_thread_set_gpr(t, JIT_GPR_RDX, r->rdx & 0xffffffffull);
		break;
	case NONDET_CPUID:
		jit_thread_set_gpr(t, JIT_GPR_RAX, r->rax & 0xffffffffull);
		jit_thread_set_gpr(t, JIT_GPR_RBX, r->rbx & 0xffffffffull);
		jit_thread_set_gpr(t, JIT_GPR_RCX, r->rcx & 0xffffffffull);
		jit_thread_set_gpr(t, JIT_GPR_RDX, r->rdx & 0xffffffffull);
		break;
	case NONDET_RDPID:
		write_reg(t, reg_of(code), r->value, 64);
		break;
	case NONDET_RDRAND:
	case NONDET_RDSEED: {
		write_reg(t, reg_of(code), r->value, width_of(code));
		struct jit_regs regs;
		jit_thread_get_regs(t, &regs);
		regs.rflags &=
		    ~(uint64_t)(FLAG_CF | FLAG_PF | FLAG_AF | FLAG_ZF | FLAG_SF | FLAG_OF);
		regs.rflags |= r->cf ? FLAG_CF : 0;
		jit_thread_set_regs(t, &regs);
		break;
	}
	}
}

void nondet_execute(struct jit_thread *t, uintptr_t code, struct nondet_result *r)
{
	*r = (struct nondet_result){.kind = kind_of(code), .dest_reg = (uint32_t)reg_of(code)};
	uint32_t a = 0, b = 0, c = 0, d = 0;
	uint64_t v = 0;
	uint8_t ok = 0;
	switch (kind_of(code)) {
	case NONDET_RDTSC:
		__asm__ volatile("rdtsc" : "=a"(a), "=d"(d));
		break;
	case NONDET_RDTSCP:
		__asm__ volatile("rdtscp" : "=a"(a), "=d"(d), "=c"(c));
		break;
	case NONDET_CPUID: {
		r->in_eax = (uint32_t)jit_thread_gpr(t, JIT_GPR_RAX);
		r->in_ecx = (uint32_t)jit_thread_gpr(t, JIT_GPR_RCX);
		uint32_t out[4];
		jit_cpuid(r->in_eax, r->in_ecx, out);
		a = out[0];
		b = out[1];
		c = out[2];
		d = out[3];
		break;
	}
	case NONDET_XGETBV:
		r->in_ecx = (uint32_t)jit_thread_gpr(t, JIT_GPR_RCX);
		__asm__ volatile("xgetbv" : "=a"(a), "=d"(d) : "c"(r->in_ecx));
		break;
	case NONDET_RDPID:
		__asm__ volatile("rdpid %0" : "=r"(v));
		break;
	case NONDET_RDRAND:
		__asm__ volatile("rdrand %0; setc %1" : "=r"(v), "=qm"(ok) : : "cc");
		break;
	case NONDET_RDSEED:
		__asm__ volatile("rdseed %0; setc %1" : "=r"(v), "=qm"(ok) : : "cc");
		break;
	}
	r->rax = a;
	r->rbx = b;
	r->rcx = c;
	r->rdx = d;
	r->value = v;
	r->cf = ok;
	apply(t, code, r);
}

bool nondet_apply(struct jit_thread *t, uintptr_t code, const struct nondet_result *r)
{
	if (r->kind != kind_of(code))
		return false;
	apply(t, code, r);
	return true;
}

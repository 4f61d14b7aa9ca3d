#include "seccomp_bpf.h"

#include <string.h>

#include "rt_alloc.h"

static bool is_conditional_jump(uint16_t code)
{
	switch (code) {
	case BPF_JMP | BPF_JEQ | BPF_K:
	case BPF_JMP | BPF_JEQ | BPF_X:
	case BPF_JMP | BPF_JGE | BPF_K:
	case BPF_JMP | BPF_JGE | BPF_X:
	case BPF_JMP | BPF_JGT | BPF_K:
	case BPF_JMP | BPF_JGT | BPF_X:
	case BPF_JMP | BPF_JSET | BPF_K:
	case BPF_JMP | BPF_JSET | BPF_X:
		return true;
	default:
		return false;
	}
}

/* One instruction at pc of a len-long program, on its own. */
static bool insn_valid(const struct sock_filter *f, size_t pc, size_t len)
{
	if (is_conditional_jump(f->code))
		return pc + f->jt + 1 < len && pc + f->jf + 1 < len;
	switch (f->code) {
	case BPF_LD | BPF_W | BPF_ABS:
		return f->k < sizeof(struct seccomp_data) && !(f->k & 3);
	case BPF_ALU | BPF_DIV | BPF_K:
		return f->k != 0;
	case BPF_ALU | BPF_LSH | BPF_K:
	case BPF_ALU | BPF_RSH | BPF_K:
		return f->k < 32;
	case BPF_LD | BPF_MEM:
	case BPF_LDX | BPF_MEM:
	case BPF_ST:
	case BPF_STX:
		return f->k < BPF_MEMWORDS;
	case BPF_JMP | BPF_JA:
		return f->k < len - pc - 1;
	case BPF_LD | BPF_W | BPF_LEN:
	case BPF_LDX | BPF_W | BPF_LEN:
	case BPF_RET | BPF_K:
	case BPF_RET | BPF_A:
	case BPF_ALU | BPF_ADD | BPF_K:
	case BPF_ALU | BPF_ADD | BPF_X:
	case BPF_ALU | BPF_SUB | BPF_K:
	case BPF_ALU | BPF_SUB | BPF_X:
	case BPF_ALU | BPF_MUL | BPF_K:
	case BPF_ALU | BPF_MUL | BPF_X:
	case BPF_ALU | BPF_DIV | BPF_X:
	case BPF_ALU | BPF_AND | BPF_K:
	case BPF_ALU | BPF_AND | BPF_X:
	case BPF_ALU | BPF_OR | BPF_K:
	case BPF_ALU | BPF_OR | BPF_X:
	case BPF_ALU | BPF_XOR | BPF_K:
	case BPF_ALU | BPF_XOR | BPF_X:
	case BPF_ALU | BPF_LSH | BPF_X:
	case BPF_ALU | BPF_RSH | BPF_X:
	case BPF_ALU | BPF_NEG:
	case BPF_LD | BPF_IMM:
	case BPF_LDX | BPF_IMM:
	case BPF_MISC | BPF_TAX:
	case BPF_MISC | BPF_TXA:
		return true;
	default:
		return false; /* outside seccomp's set (packet loads, BPF_MOD, ...) */
	}
}

/* Every scratch word read is written first on every path to the read (jumps only go
 * forward: one pass, each instruction knowing the words valid on all paths into it). */
static bool scratch_written_before_read(const struct sock_filter *prog, size_t len)
{
	uint16_t *valid_in = rt_alloc(len * sizeof *valid_in);
	if (!valid_in)
		return false;
	memset(valid_in, 0xff, len * sizeof *valid_in);
	uint16_t valid = 0;
	bool ok = true;
	for (size_t pc = 0; pc < len && ok; pc++) {
		const struct sock_filter *f = &prog[pc];
		valid &= valid_in[pc];
		if (f->code == BPF_ST || f->code == BPF_STX) {
			valid |= (uint16_t)(1u << f->k);
		} else if (f->code == (BPF_LD | BPF_MEM) || f->code == (BPF_LDX | BPF_MEM)) {
			ok = valid & (1u << f->k);
		} else if (f->code == (BPF_JMP | BPF_JA)) {
			valid_in[pc + 1 + f->k] &= valid;
			valid = 0xffff;
		} else if (is_conditional_jump(f->code)) {
			valid_in[pc + 1 + f->jt] &= valid;
			valid_in[pc + 1 + f->jf] &= valid;
			valid = 0xffff;
		}
	}
	rt_free(valid_in);
	return ok;
}

bool seccomp_bpf_valid(const struct sock_filter *prog, size_t len)
{
	if (len == 0 || len > BPF_MAXINSNS)
		return false;
	for (size_t pc = 0; pc < len; pc++)
		if (!insn_valid(&prog[pc], pc, len))
			return false;
	return BPF_CLASS(prog[len - 1].code) == BPF_RET && scratch_written_before_read(prog, len);
}

static uint32_t alu(uint16_t op, uint32_t a, uint32_t operand)
{
	switch (op) {
	case BPF_ADD:
		return a + operand;
	case BPF_SUB:
		return a - operand;
	case BPF_MUL:
		return a * operand;
	case BPF_DIV:
		return a / operand; /* the caller tested a zero divisor */
	case BPF_AND:
		return a & operand;
	case BPF_OR:
		return a | operand;
	case BPF_XOR:
		return a ^ operand;
	case BPF_LSH:
		return a << (operand & 31);
	case BPF_RSH:
		return a >> (operand & 31);
	default: /* BPF_NEG */
		return -a;
	}
}

static bool jump_taken(uint16_t op, uint32_t a, uint32_t operand)
{
	switch (op) {
	case BPF_JEQ:
		return a == operand;
	case BPF_JGT:
		return a > operand;
	case BPF_JGE:
		return a >= operand;
	default: /* BPF_JSET */
		return a & operand;
	}
}

/* What a load of class BPF_LD or BPF_LDX (of a valid program) puts in its register. */
static uint32_t loaded(const struct sock_filter *f, const struct seccomp_data *d,
		       const uint32_t *mem)
{
	uint32_t v;
	switch (BPF_MODE(f->code)) {
	case BPF_ABS:
		memcpy(&v, (const uint8_t *)d + f->k, sizeof v);
		return v;
	case BPF_LEN:
		return sizeof *d;
	case BPF_MEM:
		return mem[f->k];
	default: /* BPF_IMM */
		return f->k;
	}
}

uint32_t seccomp_bpf_run(const struct sock_filter *prog, size_t len, const struct seccomp_data *d)
{
	uint32_t a = 0, x = 0, mem[BPF_MEMWORDS] = {0};
	for (size_t pc = 0; pc < len; pc++) {
		const struct sock_filter *f = &prog[pc];
		switch (BPF_CLASS(f->code)) {
		case BPF_LD:
			a = loaded(f, d, mem);
			break;
		case BPF_LDX:
			x = loaded(f, d, mem);
			break;
		case BPF_ST:
			mem[f->k] = a;
			break;
		case BPF_STX:
			mem[f->k] = x;
			break;
		case BPF_ALU: {
			uint32_t operand = BPF_SRC(f->code) == BPF_X ? x : f->k;
			if (BPF_OP(f->code) == BPF_DIV && operand == 0)
				return 0;
			a = alu(BPF_OP(f->code), a, operand);
			break;
		}
		case BPF_JMP:
			if (BPF_OP(f->code) == BPF_JA)
				pc += f->k;
			else
				pc += jump_taken(BPF_OP(f->code), a,
						 BPF_SRC(f->code) == BPF_X ? x : f->k)
					  ? f->jt
					  : f->jf;
			break;
		case BPF_RET:
			return BPF_RVAL(f->code) == BPF_A ? a : f->k;
		case BPF_MISC:
			if (BPF_MISCOP(f->code) == BPF_TAX)
				x = a;
			else
				a = x;
			break;
		}
	}
	return 0; /* a valid program returns before its end */
}

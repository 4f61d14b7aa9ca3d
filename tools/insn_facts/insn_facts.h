/* What an instruction does, decided once at translation time for the tools that describe
 * every executed instruction (the ChampSim trace, the replay library) and for -mix's
 * memory counts: its memory operands, the registers it reads and writes in Pin's
 * numbering, and what kind of control transfer it is. Pure functions of the decoded
 * instruction: TLS-free, callable anywhere. */
#ifndef TOOL_INSN_FACTS_H
#define TOOL_INSN_FACTS_H

#include <stdbool.h>
#include <stdint.h>

#include <Zydis/Zydis.h>

/* Pin's REG numbers (Intel64), which ChampSim's Pin tracer writes into its traces and its
 * reader interprets: 6 the stack pointer, 25 the flags, 26 the instruction pointer. */
enum {
	PIN_REG_RSP = 6,
	PIN_REG_RCX = 9,
	PIN_REG_RFLAGS = 25,
	PIN_REG_RIP = 26,
};

/* Pin's number for a Zydis register, 0 for one Pin has no number for below 256. */
uint8_t pin_reg_of(ZydisRegister r);

enum insn_branch {
	INSN_NOT_BRANCH,
	INSN_JUMP,	    /* jmp rel */
	INSN_JUMP_INDIRECT, /* jmp through a register or memory */
	INSN_CONDITIONAL,   /* jcc */
	INSN_RCX_BRANCH,    /* jrcxz, jecxz, loop, loope, loopne: taken by rcx (and ZF) */
	INSN_CALL,	    /* call rel */
	INSN_CALL_INDIRECT,
	INSN_RETURN,
};

enum { INSN_MAX_MEMOPS = 4, INSN_MAX_REGS = 12 };

struct insn_memop {
	uint8_t operand; /* index into the decoded operands */
	bool read, write;
	uint16_t size; /* bytes (0: unknown) */
	ZydisRegister base;
};

struct insn_facts {
	uint8_t nmem;
	struct insn_memop mem[INSN_MAX_MEMOPS];
	/* Pin numbers; the stack pointer, instruction pointer and flags first, so that a
	 * short list (ChampSim keeps 4 sources and 2 destinations) keeps what branch
	 * classification needs. */
	uint8_t nsrc, ndst;
	uint8_t src[INSN_MAX_REGS], dst[INSN_MAX_REGS];
	uint8_t branch;	    /* enum insn_branch */
	bool rep;	    /* a REP string instruction: one execution per iteration */
	bool pin_is_branch; /* Pin's INS_IsBranch: jumps and conditional branches */
};

/* The memory operands an instruction accesses as data at one address: not lea's address,
 * not prefetches, NOPs or cache-line flushes, not a gather's or scatter's elements. */
bool insn_memop_traced(const ZydisDecodedInstruction *insn, const ZydisDecodedOperand *op);

void insn_facts_of(const ZydisDecodedInstruction *insn, const ZydisDecodedOperand *ops,
		   struct insn_facts *f);

#endif

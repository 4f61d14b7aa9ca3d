/* What -debugtrace needs of an instruction, decided at translation: its text, how to
 * compute its memory operands' addresses from the registers, which registers it writes. */
#ifndef TOOL_DEBUGTRACE_INSN_H
#define TOOL_DEBUGTRACE_INSN_H

#include <stdbool.h>
#include <stdint.h>

#include <Zydis/Zydis.h>

#include "insn_facts.h"
#include "instrument.h"

enum { DT_TEXT = 96, DT_MAX_WRITTEN = 6 };

struct dt_memop {
	int8_t base, index; /* JIT_GPR_* or -1 */
	uint8_t scale;
	bool fs, read, write, xlat; /* xlat: rbx + al */
	uint16_t size;
	int64_t disp; /* an absolute address when base and index are -1 (rip-relative too) */
};

struct dt_insn {
	uint64_t pc;
	uint8_t nmem, nwritten;
	struct dt_memop mem[INSN_MAX_MEMOPS];
	uint16_t written[DT_MAX_WRITTEN]; /* ZydisRegister: GPRs as their 64-bit names */
	char text[DT_TEXT];
};

/* Fills d for instruction i of the block (TLS-free). */
void dt_describe(const struct jit_block *b, size_t i, struct dt_insn *d);

/* The address of memory operand m with the registers r (fs: the %fs base). */
uint64_t dt_address(const struct dt_memop *m, const struct jit_regs *r);

#endif

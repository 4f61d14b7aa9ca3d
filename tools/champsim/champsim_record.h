/* ChampSim's trace record (its `input_instr`, 64 bytes, little-endian, no padding):
 *
 *   offset  size  field
 *        0     8  ip
 *        8     1  is_branch      (Pin's INS_IsBranch: jumps and conditional branches)
 *        9     1  branch_taken
 *       10     2  destination registers  (Pin REG numbers; 0: none)
 *       12     4  source registers
 *       16    16  destination memory     (2 addresses; 0: none)
 *       32    32  source memory          (4 addresses)
 *
 * Registers and addresses are sets, as ChampSim's Pin tracer fills them: no repeats,
 * unused entries zero, what does not fit left out. Pure code (any thread). */
#ifndef TOOL_CHAMPSIM_RECORD_H
#define TOOL_CHAMPSIM_RECORD_H

#include <stdint.h>
#include <string.h>

#include "capture.h"

enum {
	CHAMPSIM_RECORD_BYTES = 64,
	CHAMPSIM_HEAD_BYTES = 16, /* up to the memory addresses: the same at every execution */
	CHAMPSIM_DST_REGS = 2,
	CHAMPSIM_SRC_REGS = 4,
	CHAMPSIM_DST_MEM = 2,
	CHAMPSIM_SRC_MEM = 4,
};

/* The record's first 16 bytes for an instruction, with branch_taken 0. */
void champsim_head_of(const struct capture_insn *in, uint8_t head[CHAMPSIM_HEAD_BYTES]);

/* Adds address v to a set of n (0 = empty) unless it is there already or the set is full. */
static inline void champsim_add_address(uint64_t *set, unsigned n, uint64_t v)
{
	for (unsigned i = 0; v && i < n; i++) {
		if (set[i] == v)
			return;
		if (!set[i]) {
			set[i] = v;
			return;
		}
	}
}

/* The record of one execution, from its instruction's head. Inline: the writer makes one
 * per executed instruction. */
static inline void champsim_record_from(const struct capture_exec *x,
					const uint8_t head[CHAMPSIM_HEAD_BYTES],
					uint8_t out[CHAMPSIM_RECORD_BYTES])
{
	const struct insn_facts *f = &x->insn->facts;
	uint64_t mem[CHAMPSIM_DST_MEM + CHAMPSIM_SRC_MEM] = {0};
	memcpy(out, head, CHAMPSIM_HEAD_BYTES);
	out[9] = head[8] && x->taken;
	if (f->nmem == 1) { /* most instructions with memory: no set to search */
		if (f->mem[0].write)
			mem[0] = x->address[0];
		if (f->mem[0].read)
			mem[CHAMPSIM_DST_MEM] = x->address[0];
		memcpy(out + CHAMPSIM_HEAD_BYTES, mem, sizeof mem);
		return;
	}
	for (uint8_t m = 0; m < f->nmem; m++) {
		if (f->mem[m].write)
			champsim_add_address(mem, CHAMPSIM_DST_MEM, x->address[m]);
		if (f->mem[m].read)
			champsim_add_address(mem + CHAMPSIM_DST_MEM, CHAMPSIM_SRC_MEM,
					     x->address[m]);
	}
	memcpy(out + CHAMPSIM_HEAD_BYTES, mem, sizeof mem);
}

#endif

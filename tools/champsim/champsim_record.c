#include "champsim_record.h"

/* Adds register r to a set of n bytes (0 = empty) unless it is there or the set is full. */
static void add_register(uint8_t *set, unsigned n, uint8_t r)
{
	for (unsigned i = 0; r && i < n; i++) {
		if (set[i] == r)
			return;
		if (!set[i]) {
			set[i] = r;
			return;
		}
	}
}

void champsim_head_of(const struct capture_insn *in, uint8_t head[CHAMPSIM_HEAD_BYTES])
{
	const struct insn_facts *f = &in->facts;
	memset(head, 0, CHAMPSIM_HEAD_BYTES);
	memcpy(head, &in->pc, 8);
	head[8] = f->pin_is_branch;
	for (uint8_t i = 0; i < f->ndst; i++)
		add_register(head + 10, CHAMPSIM_DST_REGS, f->dst[i]);
	for (uint8_t i = 0; i < f->nsrc; i++)
		add_register(head + 12, CHAMPSIM_SRC_REGS, f->src[i]);
}

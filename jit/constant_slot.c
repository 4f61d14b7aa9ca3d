#include "constant_slot.h"

#include <sys/mman.h>

#include "app_copy.h"
#include "fragment.h"
#include "jit_app.h"

struct slot_search {
	uint64_t slot;
	bool constant;
};

static int find_constant_slot(const struct jit_app_mapping *m, void *arg)
{
	struct slot_search *s = arg;
	if (s->slot < m->start || s->slot + 8 > m->end)
		return m->start > s->slot; /* (address order: past it, stop) */
	s->constant = (m->flags & MAP_PRIVATE) && (m->prot & PROT_READ) && !(m->prot & PROT_WRITE);
	return 1;
}

bool constant_slot_target(const struct block_insn *bi, uint64_t *target)
{
	const ZydisDecodedOperand *op = &block_insn_ops(bi)[0];
	if (op->type != ZYDIS_OPERAND_TYPE_MEMORY || op->mem.base != ZYDIS_REGISTER_RIP ||
	    op->mem.index != ZYDIS_REGISTER_NONE || op->mem.segment == ZYDIS_REGISTER_FS ||
	    op->mem.segment == ZYDIS_REGISTER_GS || op->size != 64)
		return false;
	struct slot_search s = {bi->pc + bi->insn.length + (uint64_t)bi->insn.raw.disp.value,
				false};
	jit_app_map_foreach(find_constant_slot, &s);
	if (!s.constant || !app_copy_in(target, s.slot, sizeof *target))
		return false;
	fragment_depends_on(s.slot, s.slot + sizeof *target);
	return true;
}

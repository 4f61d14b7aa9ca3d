#include "constant_slot.h"

#include <sys/mman.h>

#include "app_copy.h"
#include "fragment.h"
#include "jit_app.h"

struct range_search {
	uint64_t start, end;
	bool constant;
};

static int find_constant_range(const struct jit_app_mapping *m, void *arg)
{
	struct range_search *s = arg;
	if (s->start < m->start || s->end > m->end)
		return m->start > s->start; /* (address order: past it, stop) */
	s->constant = (m->flags & MAP_PRIVATE) && (m->prot & PROT_READ) && !(m->prot & PROT_WRITE);
	return 1;
}

bool constant_range(uint64_t start, uint64_t len)
{
	struct range_search s = {start, start + len, false};
	if (s.end < start)
		return false;
	jit_app_map_foreach(find_constant_range, &s);
	return s.constant;
}

bool constant_slot_target(const struct block_insn *bi, uint64_t *slot, uint64_t *target)
{
	const ZydisDecodedOperand *op = &block_insn_ops(bi)[0];
	if (op->type != ZYDIS_OPERAND_TYPE_MEMORY || op->mem.base != ZYDIS_REGISTER_RIP ||
	    op->mem.index != ZYDIS_REGISTER_NONE || op->mem.segment == ZYDIS_REGISTER_FS ||
	    op->mem.segment == ZYDIS_REGISTER_GS || op->size != 64)
		return false;
	*slot = bi->pc + bi->insn.length + (uint64_t)bi->insn.raw.disp.value;
	if (!constant_range(*slot, sizeof *target) || !app_copy_in(target, *slot, sizeof *target))
		return false;
	fragment_depends_on(*slot, *slot + sizeof *target);
	return true;
}

bool constant_slot_still(uint64_t slot, uint64_t target)
{
	uint64_t now;
	if (!constant_range(slot, sizeof now) || !app_copy_in(&now, slot, sizeof now) ||
	    now != target)
		return false;
	fragment_depends_on(slot, slot + sizeof now);
	return true;
}

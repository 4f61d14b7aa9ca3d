#include "constant_slot.h"

#include "app_copy.h"
#include "app_map.h"
#include "fragment.h"

bool constant_range(uint64_t start, uint64_t len)
{
	return app_map_constant(start, len);
}

bool constant_slot_address(const struct block_insn *bi, uint64_t *slot)
{
	const ZydisDecodedOperand *op = &block_insn_ops(bi)[0];
	if (op->type != ZYDIS_OPERAND_TYPE_MEMORY || op->mem.base != ZYDIS_REGISTER_RIP ||
	    op->mem.index != ZYDIS_REGISTER_NONE || op->mem.segment == ZYDIS_REGISTER_FS ||
	    op->mem.segment == ZYDIS_REGISTER_GS || op->size != 64)
		return false;
	*slot = bi->pc + bi->insn.length + (uint64_t)bi->insn.raw.disp.value;
	return true;
}

bool constant_slot_target(const struct block_insn *bi, uint64_t *slot, uint64_t *target)
{
	if (!constant_slot_address(bi, slot) || !constant_range(*slot, sizeof *target) ||
	    !app_copy_in(target, *slot, sizeof *target))
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

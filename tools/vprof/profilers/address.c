/* vp-address: the effective addresses of loads and stores (DCPI's vp-addr): for every
 * instruction that accesses memory as data, the address of each operand it accesses (a
 * string instruction's first iteration's). Its hotlist shows where each load and store
 * goes, and how spread out that is. */
#include <inttypes.h>
#include <stdio.h>

#include "bundled.h"

static const struct vprof_rule rules[] = {
    {.match = VPROF_MATCH_MEMORY, .nvalues = 2, .values = {{VPROF_ADDR, 0, 0}, {VPROF_ADDR, 1, 0}}},
};
const struct vprof_spec bundled_spec = {0, 1, rules};
const char bundled_name[] = "address";

const char *bundled_preface(const struct vprof_insn *insn)
{
	unsigned access = 0;
	for (unsigned k = 0; k < insn->nvalues; k++)
		if (insn->values[k].valid)
			access |= insn->values[k].access;
	switch (access) {
	case VPROF_READ:
		return "load address";
	case VPROF_WRITE:
		return "store address";
	case VPROF_READ | VPROF_WRITE:
		return "load and store address";
	default:
		return NULL;
	}
}

void bundled_format(const struct vprof_insn *insn, uint64_t value, char *buf, size_t size)
{
	(void)insn;
	snprintf(buf, size, "0x%" PRIx64, value);
}

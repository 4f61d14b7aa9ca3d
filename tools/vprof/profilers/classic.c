/* vp-classic: the classic value profile (DCPI's "classic value profiling"): the result of
 * every instruction that has one, a general-purpose register or memory it writes. Its
 * hotlist shows how invariant each result is and its most frequent values. */
#include <inttypes.h>
#include <stdio.h>

#include "bundled.h"

static const struct vprof_rule rules[] = {
    {.match = VPROF_MATCH_ALL, .nvalues = 1, .values = {{VPROF_RESULT, 0, VPROF_AFTER}}},
};
const struct vprof_spec bundled_spec = {0, 1, rules};
const char bundled_name[] = "classic";

const char *bundled_preface(const struct vprof_insn *insn)
{
	static char line[64];
	const struct vprof_slot *s = &insn->values[0];
	if (!insn->nvalues || !s->valid)
		return NULL; /* no result to show */
	if (s->reg)
		snprintf(line, sizeof line, "result (%s)", s->reg);
	else
		snprintf(line, sizeof line, "result (%u bytes of memory)", s->size);
	return line;
}

/* Hexadecimal, and the signed value too when it is negative at the result's width. */
void bundled_format(const struct vprof_insn *insn, uint64_t value, char *buf, size_t size)
{
	unsigned bits = insn->nvalues ? 8u * insn->values[0].size : 64;
	int64_t signed_value = bits < 64 && (value >> (bits - 1)) & 1
				   ? (int64_t)(value | ~((1ull << bits) - 1))
				   : (int64_t)value;
	if (signed_value < 0)
		snprintf(buf, size, "0x%" PRIx64 " (%" PRId64 ")", value, signed_value);
	else
		snprintf(buf, size, "0x%" PRIx64, value);
}

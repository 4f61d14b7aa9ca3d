/* Compiling a plug-in's specification (driver thread): names resolved to Zydis's numbers,
 * selectors asked once per mnemonic, so that translation only looks bits up. */
#include <stdio.h>
#include <string.h>

#include "vprof_spec.h"

static void set_bit(struct vp_rule *r, ZydisMnemonic m)
{
	r->mnemonics[m / 8] |= (uint8_t)(1u << (m % 8));
}

static bool any_bit(const struct vp_rule *r)
{
	for (size_t i = 0; i < sizeof r->mnemonics; i++)
		if (r->mnemonics[i])
			return true;
	return false;
}

static bool value_ok(struct vprof_value v)
{
	switch (v.kind) {
	case VPROF_REG:
		return v.arg < 16 && v.when <= VPROF_BEFORE;
	case VPROF_DEST:
	case VPROF_SRC:
	case VPROF_ADDR:
	case VPROF_MEM:
	case VPROF_RESULT:
		return v.when <= VPROF_BEFORE;
	default:
		return false;
	}
}

static int compile_rule(const struct vprof_rule *in, struct vp_rule *r, char *err, size_t errlen)
{
	memset(r, 0, sizeof *r);
	r->match = in->match;
	switch (in->match) {
	case VPROF_MATCH_ALL:
	case VPROF_MATCH_MEMORY:
		break;
	case VPROF_MATCH_MNEMONIC:
		for (int m = 1; m <= ZYDIS_MNEMONIC_MAX_VALUE; m++) {
			const char *name = ZydisMnemonicGetString((ZydisMnemonic)m);
			if (in->name && name && !strcmp(in->name, name))
				set_bit(r, (ZydisMnemonic)m);
		}
		if (!any_bit(r)) {
			snprintf(err, errlen, "no instruction has the mnemonic '%s'",
				 in->name ? in->name : "(null)");
			return -1;
		}
		break;
	case VPROF_MATCH_CATEGORY:
		for (int c = 1; c <= ZYDIS_CATEGORY_MAX_VALUE; c++) {
			const char *name = ZydisCategoryGetString((ZydisInstructionCategory)c);
			if (in->name && name && !strcmp(in->name, name))
				r->category = (ZydisInstructionCategory)c;
		}
		if (!r->category) {
			snprintf(err, errlen, "no instruction category is named '%s'",
				 in->name ? in->name : "(null)");
			return -1;
		}
		break;
	case VPROF_MATCH_SELECT:
		if (!in->select) {
			snprintf(err, errlen,
				 "a VPROF_MATCH_SELECT rule without a select function");
			return -1;
		}
		for (int m = 1; m <= ZYDIS_MNEMONIC_MAX_VALUE; m++) {
			const char *name = ZydisMnemonicGetString((ZydisMnemonic)m);
			if (name && in->select(name))
				set_bit(r, (ZydisMnemonic)m);
		}
		break;
	default:
		snprintf(err, errlen, "unknown match kind %u", in->match);
		return -1;
	}
	if (in->nvalues > VPROF_MAX_VALUES) {
		snprintf(err, errlen, "%u values (at most %d)", in->nvalues, VPROF_MAX_VALUES);
		return -1;
	}
	for (unsigned k = 0; k < in->nvalues; k++) {
		if (!value_ok(in->values[k])) {
			snprintf(err, errlen,
				 "value %u is not one pintrace captures (kind %u, arg %u)", k,
				 in->values[k].kind, in->values[k].arg);
			return -1;
		}
		r->values[k] = in->values[k];
	}
	r->nvalues = in->nvalues;
	return 0;
}

int vp_spec_compile(const struct vprof_spec *in, struct vp_spec *s, char *err, size_t errlen)
{
	if (!in) {
		snprintf(err, errlen, "prof_init returned no specification");
		return -1;
	}
	if (in->contexts & ~(VPROF_CONTEXT_THREAD | VPROF_CONTEXT_CALLER)) {
		snprintf(err, errlen, "unknown contexts 0x%x", in->contexts);
		return -1;
	}
	if (in->nrules > VPROF_MAX_RULES || (in->nrules && !in->rules)) {
		snprintf(err, errlen, "%u rules (at most %d)", in->nrules, VPROF_MAX_RULES);
		return -1;
	}
	s->contexts = in->contexts;
	s->nrules = in->nrules;
	for (unsigned r = 0; r < in->nrules; r++) {
		char why[200];
		if (compile_rule(&in->rules[r], &s->rules[r], why, sizeof why)) {
			snprintf(err, errlen, "rule %u: %s", r, why);
			return -1;
		}
	}
	return 0;
}

/* A plug-in's capture specification (pintrace_vprofiler.h), compiled once when the plug-in
 * is loaded (vp_spec_compile, driver thread) and applied to each decoded instruction
 * (vp_spec_describe: pure, TLS-free, at translation on app threads and in the lister): which
 * instructions are profiled, and how each of their values is captured. */
#ifndef TOOL_VPROF_SPEC_H
#define TOOL_VPROF_SPEC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <Zydis/Zydis.h>

#include "pintrace_vprofiler.h"

enum { VP_MNEMONIC_BYTES = (ZYDIS_MNEMONIC_MAX_VALUE + 8) / 8 };

struct vp_rule {
	uint8_t match; /* enum vprof_match */
	ZydisInstructionCategory category;
	uint8_t mnemonics[VP_MNEMONIC_BYTES]; /* MNEMONIC, SELECT: a bit per mnemonic */
	unsigned nvalues;
	struct vprof_value values[VPROF_MAX_VALUES];
};

struct vp_spec {
	unsigned contexts; /* VPROF_CONTEXT_* */
	unsigned nrules;
	struct vp_rule rules[VPROF_MAX_RULES];
};

/* How one value of an instruction is captured. */
enum vp_how {
	VP_NONE, /* not at all (the slot is not valid) */
	VP_GPR,	 /* a general-purpose register, before or after */
	VP_ADDR, /* a memory operand's address, before */
	VP_MEM,	 /* a memory operand's bytes, after */
};

struct vp_capture {
	uint8_t how;   /* enum vp_how */
	uint8_t what;  /* VP_GPR: the register (hardware number); else the operand's index */
	bool after;    /* VP_GPR */
	uint8_t shift; /* the value is raw >> shift, cut to its slot's size (ah: 8) */
};

/* Driver thread: the plug-in's specification checked and compiled into s. 0, or -1 with a
 * one-line reason (a rule naming no known mnemonic or category, too many rules or
 * values...). */
int vp_spec_compile(const struct vprof_spec *in, struct vp_spec *s, char *err, size_t errlen);

/* Whether the instruction at pc (decoded, with its bytes) is profiled; if so, `out` says what
 * its values are (the plug-in's view) and `how` how each is captured. A value the
 * instruction does not have is not valid (and VP_NONE). Pure. */
bool vp_spec_describe(const struct vp_spec *s, uint64_t pc, const ZydisDecodedInstruction *insn,
		      const ZydisDecodedOperand *ops, const uint8_t *bytes, struct vprof_insn *out,
		      struct vp_capture how[VPROF_MAX_VALUES]);

#endif

/* Instructions whose results differ from run to run (time stamps, random numbers, CPU
 * identity): the logger runs them for the app and records their results, the replayer
 * gives the app the recorded results instead. Both place a callout before the instruction
 * and suppress it (jit_suppress_insn). */
#ifndef JIT_NONDET_H
#define JIT_NONDET_H

#include <Zydis/Zydis.h>
#include <stdbool.h>
#include <stdint.h>

#include "instrument.h"

/* Same numbers as the pinball format's enum pinball_insn_kind. */
enum nondet_kind {
	NONDET_RDTSC = 1,
	NONDET_RDTSCP,
	NONDET_RDRAND,
	NONDET_RDSEED,
	NONDET_RDPID,
	NONDET_CPUID,
	NONDET_XGETBV,
};

struct nondet_result {
	enum nondet_kind kind;
	uint64_t rax, rbx, rcx, rdx; /* registers the instruction writes (cpuid, rdtsc...) */
	uint64_t value;		     /* rdrand/rdseed/rdpid destination */
	uint32_t dest_reg;	     /* its hardware number */
	bool cf;		     /* rdrand/rdseed success */
	uint32_t in_eax, in_ecx;     /* cpuid leaf/subleaf, xgetbv index */
};

/* When instruction i of b is one of them, a code for it (the callout argument); else 0. */
uintptr_t nondet_classify(const struct jit_block *b, size_t i);

/* Places `fn` (its argument: the instruction's code) before every non-deterministic
 * instruction of the block, and suppresses the instruction: fn stands in for it. */
void nondet_instrument_block(struct jit_block *b, jit_callout_fn fn);

/* Runs the instruction `code` for thread t on the real CPU, applies its effect to t and
 * describes it in *r. */
void nondet_execute(struct jit_thread *t, uintptr_t code, struct nondet_result *r);

/* Applies a recorded result to t. False when r does not fit `code` (another instruction). */
bool nondet_apply(struct jit_thread *t, uintptr_t code, const struct nondet_result *r);

#endif

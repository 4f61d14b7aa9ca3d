/* Matching alarms against code as it is translated, and the callouts they become. */
#include <string.h>

#include "engine_internal.h"
#include "xed_zydis.h"

enum { MAGIC_XCHG_EBX_0 = 0x87, MAGIC_XCHG_EBX_1 = 0xdb };

static const uint8_t ssc_marker[] = {0x64, 0x67, 0x90};

/* `mov $imm32,%ebx` followed by the marker nop 64 67 90. */
static bool is_ssc(const struct jit_block *b, size_t i, uint32_t value)
{
	if (jit_block_insn(b, i)->mnemonic != ZYDIS_MNEMONIC_MOV)
		return false;
	const ZydisDecodedOperand *ops = jit_block_operands(b, i);
	if (ops[0].type != ZYDIS_OPERAND_TYPE_REGISTER || ops[0].reg.value != ZYDIS_REGISTER_EBX ||
	    ops[1].type != ZYDIS_OPERAND_TYPE_IMMEDIATE || (uint32_t)ops[1].imm.value.u != value ||
	    i + 1 >= jit_block_length(b))
		return false;
	const ZydisDecodedInstruction *next = jit_block_insn(b, i + 1);
	return next->length == sizeof ssc_marker &&
	       memcmp(jit_block_bytes(b, i + 1), ssc_marker, sizeof ssc_marker) == 0;
}

static bool same_name(const char *a, const char *b)
{
	return a && b && strcmp(a, b) == 0;
}

static bool insn_matches(const struct jit_block *b, size_t i, const struct alarm_ref *r)
{
	const struct control_alarm *a = engine_alarm(r);
	const ZydisDecodedInstruction *insn = jit_block_insn(b, i);
	const uint8_t *bytes = jit_block_bytes(b, i);
	uint64_t pc = jit_block_pc(b, i);
	switch (a->type) {
	case CONTROL_ALARM_ADDRESS:
	case CONTROL_ALARM_ENTER_FUNC:
	case CONTROL_ALARM_EXIT_FUNC:
	case CONTROL_ALARM_PCONTROL:
		return r->resolved_pc && pc == r->resolved_pc;
	case CONTROL_ALARM_SSC:
		return is_ssc(b, i, a->u.ssc);
	case CONTROL_ALARM_ITEXT:
		return insn->length == a->u.itext.len &&
		       memcmp(bytes, a->u.itext.bytes, a->u.itext.len) == 0;
	case CONTROL_ALARM_INT3:
		return insn->mnemonic == ZYDIS_MNEMONIC_INT3;
	case CONTROL_ALARM_ISA_EXTENSION:
		return same_name(xed_extension_of_zydis(insn->meta.isa_ext), a->u.isa);
	case CONTROL_ALARM_ISA_CATEGORY:
		return same_name(xed_category_of_zydis(insn->meta.category), a->u.isa);
	case CONTROL_ALARM_CPUID:
		return insn->mnemonic == ZYDIS_MNEMONIC_CPUID;
	case CONTROL_ALARM_MAGIC:
		return insn->length == 2 && bytes[0] == MAGIC_XCHG_EBX_0 &&
		       bytes[1] == MAGIC_XCHG_EBX_1;
	default:
		return false;
	}
}

/* Reads a NUL-terminated app string without faulting; false when unreadable or long. */
static bool app_string_equals(uint64_t addr, const char *want)
{
	size_t n = strlen(want) + 1;
	char buf[256];
	if (!addr || n > sizeof buf || !jit_read_app_memory(buf, addr, n))
		return false;
	return memcmp(buf, want, n) == 0;
}

/* Conditions that depend on registers at the instruction: checked when the callout runs. */
static bool registers_match(const struct jit_thread *t, const struct control_alarm *a)
{
	switch (a->type) {
	case CONTROL_ALARM_CPUID:
		return (uint32_t)jit_thread_gpr(t, JIT_GPR_RAX) == a->u.cpuid.leaf &&
		       (!a->u.cpuid.has_subleaf ||
			(uint32_t)jit_thread_gpr(t, JIT_GPR_RCX) == a->u.cpuid.subleaf);
	case CONTROL_ALARM_MAGIC:
		return jit_thread_gpr(t, JIT_GPR_RAX) == a->u.magic.a &&
		       (!a->u.magic.has_b || jit_thread_gpr(t, JIT_GPR_RBX) == a->u.magic.b);
	case CONTROL_ALARM_PCONTROL: /* MPI_Pcontrol(int level, const char *name, ...) */
		return app_string_equals(jit_thread_gpr(t, JIT_GPR_RSI), a->u.pcontrol);
	default:
		return true;
	}
}

static bool watched(uint64_t pc)
{
	for (uint32_t i = 0; i < engine.nwatches; i++)
		if (engine.watches[i] == pc)
			return true;
	return false;
}

static void add_watch(uint64_t pc)
{
	if (watched(pc) || engine.nwatches == ENGINE_MAX_WATCHES)
		return;
	engine.watches[engine.nwatches++] = pc;
	engine_retranslate_pc(pc);
}

/* exit_func at a function's entry: remember the outermost activation, then watch for the
 * return to its caller (the seed: exit_func always refers to the top-most call). */
static void enter_watched_function(struct engine_thread *et, struct alarm_ref *r)
{
	struct engine_run *run = &et->runs[r->chain];
	if (run->in_func)
		return; /* a nested (recursive) call */
	uint64_t rsp = jit_thread_gpr(et->jt, JIT_GPR_RSP);
	uint64_t ret = 0;
	if (!jit_read_app_memory(&ret, rsp, sizeof ret))
		return;
	run->in_func = true;
	run->func_ref = (uint32_t)(r - engine.refs);
	run->func_rsp = rsp;
	run->func_return_pc = ret;
	add_watch(ret);
}

static void on_alarm(const struct jit_callout *c)
{
	struct alarm_ref *r = c->arg;
	rt_mutex_lock(&engine.lock);
	struct engine_thread *et = engine_thread_of(c->thread);
	const struct control_alarm *a = engine_alarm(r);
	if (et && registers_match(c->thread, a)) {
		if (a->type == CONTROL_ALARM_EXIT_FUNC)
			enter_watched_function(et, r);
		else
			engine_match(et, r, c->pc, jit_callout_icount(c));
		engine_update_budget(et, jit_thread_icount(c->thread));
	}
	rt_mutex_unlock(&engine.lock);
}

/* At a watched return address: the outermost activation returned when the stack pointer is
 * back above the return address it was called with. */
static void on_return(const struct jit_callout *c)
{
	rt_mutex_lock(&engine.lock);
	struct engine_thread *et = engine_thread_of(c->thread);
	uint64_t rsp = jit_thread_gpr(c->thread, JIT_GPR_RSP);
	for (uint32_t ch = 0; et && ch < engine.spec->nchains; ch++) {
		struct engine_run *run = &et->runs[ch];
		if (!run->in_func || run->func_return_pc != c->pc || rsp != run->func_rsp + 8)
			continue;
		run->in_func = false;
		if (run->active && engine_ref(ch, run->alarm) == &engine.refs[run->func_ref])
			engine_match(et, &engine.refs[run->func_ref], c->pc, jit_callout_icount(c));
	}
	if (et)
		engine_update_budget(et, jit_thread_icount(c->thread));
	rt_mutex_unlock(&engine.lock);
}

void engine_instrument_block(struct jit_block *b, void *arg)
{
	(void)arg;
	rt_mutex_lock(&engine.lock);
	for (size_t i = 0; i < jit_block_length(b); i++) {
		for (uint32_t k = 0; k < engine.nrefs; k++) {
			struct alarm_ref *r = &engine.refs[k];
			const struct control_alarm *a = engine_alarm(r);
			/* exit_func entries are followed even unarmed: "outermost" needs them;
			 * pattern alarms' sites are noted even unarmed, for their arming */
			bool pattern = engine_is_pattern_alarm(a);
			bool wanted = r->armed || a->type == CONTROL_ALARM_EXIT_FUNC;
			if ((!wanted && !pattern) || !engine_is_instruction_alarm(a) ||
			    !insn_matches(b, i, r))
				continue;
			if (pattern)
				engine_note_site(r, jit_block_pc(b, i));
			if (!wanted)
				continue;
			jit_insert_callout(b, i, on_alarm, r);
			if (engine_alarm(r)->type == CONTROL_ALARM_INT3)
				jit_suppress_insn(b, i); /* the seed: int3 is not executed */
		}
		if (engine.nwatches && watched(jit_block_pc(b, i)))
			jit_insert_callout(b, i, on_return, NULL);
	}
	if (engine.budget_slot >= 0)
		jit_insert_budget_check(b, engine.budget_slot, engine_on_budget, NULL);
	rt_mutex_unlock(&engine.lock);
}

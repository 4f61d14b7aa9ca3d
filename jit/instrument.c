#include "instrument.h"

#include "block.h"
#include "flush.h"
#include "thread_block.h"
#include "threads.h"

enum { MAX_CLIENTS = 8 };

static const struct jit_client *clients[MAX_CLIENTS];
static int client_count;
static int slots_reserved;

void jit_register_client(const struct jit_client *c)
{
	if (client_count < MAX_CLIENTS)
		clients[client_count++] = c;
}

int jit_thread_slot_reserve(void)
{
	return slots_reserved < TB_CLIENT_SLOT_COUNT ? slots_reserved++ : -1;
}

uint64_t jit_thread_slot_value(const struct jit_thread *t, int slot)
{
	return t->client_slots[slot];
}

size_t jit_block_length(const struct jit_block *b) { return b->length; }
uint64_t jit_block_pc(const struct jit_block *b, size_t i) { return b->insns[i].pc; }
const ZydisDecodedInstruction *jit_block_insn(const struct jit_block *b, size_t i)
{
	return &b->insns[i].insn;
}
const ZydisDecodedOperand *jit_block_operands(const struct jit_block *b, size_t i)
{
	return b->insns[i].ops;
}

bool jit_insn_is_rep_string(const ZydisDecodedInstruction *insn)
{
	const ZydisInstructionAttributes rep =
		ZYDIS_ATTRIB_HAS_REP | ZYDIS_ATTRIB_HAS_REPE | ZYDIS_ATTRIB_HAS_REPNE;
	return (insn->attributes & rep) && insn->meta.category == ZYDIS_CATEGORY_STRINGOP;
}

void jit_insert_block_counter(struct jit_block *b, int slot, uint32_t amount)
{
	for (size_t i = 0; i < b->counter_count; i++) {
		if (b->counters[i].slot == slot) {
			b->counters[i].amount += amount;
			return;
		}
	}
	if (b->counter_count < BLOCK_MAX_COUNTERS)
		b->counters[b->counter_count++] = (struct block_counter){slot, amount};
}

void jit_insert_rep_counter(struct jit_block *b, size_t i, int slot)
{
	b->insns[i].rep_counter_slot = slot;
}

void jit_insert_callout(struct jit_block *b, size_t i, jit_callout_fn fn, void *arg)
{
	struct block_insn *bi = &b->insns[i];
	if (bi->callout_count < BLOCK_MAX_CALLOUTS)
		bi->callouts[bi->callout_count++] = (struct block_callout){fn, arg, -1};
}

void jit_insert_budget_check(struct jit_block *b, int slot, jit_callout_fn fn, void *arg)
{
	if (b->budget_count < BLOCK_MAX_CALLOUTS)
		b->budgets[b->budget_count++] = (struct block_callout){fn, arg, slot};
}

uint64_t jit_thread_gpr(const struct jit_thread *t, int reg) { return t->gpr[reg]; }

void jit_thread_slot_set(struct jit_thread *t, int slot, uint64_t value)
{
	t->client_slots[slot] = value;
}

void jit_request_retranslation(void) { jit_flush_cache(); }

void instrument_block(struct jit_block *b)
{
	for (int i = 0; i < client_count; i++)
		if (clients[i]->instrument_block)
			clients[i]->instrument_block(b, clients[i]->arg);
}

void instrument_at_exit(int status)
{
	for (int i = 0; i < client_count; i++)
		if (clients[i]->at_exit)
			clients[i]->at_exit(status, clients[i]->arg);
}

bool block_flags_live_from(const struct jit_block *b, size_t from)
{
	const ZydisAccessedFlagsMask status = ZYDIS_CPUFLAG_CF | ZYDIS_CPUFLAG_PF |
					      ZYDIS_CPUFLAG_AF | ZYDIS_CPUFLAG_ZF |
					      ZYDIS_CPUFLAG_SF | ZYDIS_CPUFLAG_OF;
	ZydisAccessedFlagsMask written = 0;
	for (size_t i = from; i < b->length; i++) {
		const ZydisAccessedFlags *f = b->insns[i].insn.cpu_flags;
		if (!f)
			return true;
		if (f->tested & status & ~written)
			return true;
		written |= (f->modified | f->set_0 | f->set_1 | f->undefined) & status;
		if (written == status)
			return false;
	}
	return true;
}

size_t jit_thread_count(void) { return threads_count(); }
const struct jit_thread *jit_thread_at(size_t index) { return threads_at(index); }
uint32_t jit_thread_id(const struct jit_thread *t) { return t->tid; }

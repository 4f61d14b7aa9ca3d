#include "instrument.h"

#include <string.h>
#include <sys/uio.h>

#include "app_memory.h"
#include "block.h"
#include "code_pages.h"
#include "cpuid_table.h"
#include "emit_instrumentation.h"
#include "flush.h"
#include "instruction_count.h"
#include "messages.h"
#include "park.h"
#include "probe_read.h"
#include "rt_syscall.h"
#include "runtime_lock.h"
#include "thread_block.h"
#include "threads.h"
#include "translate.h"
#include "world.h"

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

size_t jit_block_length(const struct jit_block *b)
{
	return b->length;
}
uint64_t jit_block_pc(const struct jit_block *b, size_t i)
{
	return b->insns[i].pc;
}
const ZydisDecodedInstruction *jit_block_insn(const struct jit_block *b, size_t i)
{
	return &b->insns[i].insn;
}
const ZydisDecodedOperand *jit_block_operands(const struct jit_block *b, size_t i)
{
	return block_insn_ops(&b->insns[i]);
}

bool jit_block_flags_live(const struct jit_block *b)
{
	return block_flags_live_from(b, 0);
}

bool jit_block_may_loop(const struct jit_block *b)
{
	const struct block_insn *last = &b->insns[b->length - 1];
	const ZydisDecodedOperand *op = &block_insn_ops(last)[0];
	switch (last->insn.meta.category) {
	case ZYDIS_CATEGORY_COND_BR:
	case ZYDIS_CATEGORY_UNCOND_BR:
	case ZYDIS_CATEGORY_CALL:
		if (op->type != ZYDIS_OPERAND_TYPE_IMMEDIATE || !op->imm.is_relative)
			return true;
		return last->pc + last->insn.length + (uint64_t)op->imm.value.s <= last->pc;
	case ZYDIS_CATEGORY_RET:
		return true;
	default:
		return false; /* it goes on to the next instruction (a syscall returns there) */
	}
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

void jit_insert_table_counter(struct jit_block *b, int table_slot, uint32_t index, int index_slot)
{
	b->table_counter = (struct block_table_counter){table_slot, index_slot, index};
}

void jit_insert_rep_table_counter(struct jit_block *b, size_t i, int table_slot, uint32_t index)
{
	b->insns[i].rep_table_slot = table_slot;
	b->insns[i].rep_table_index = index;
}

void jit_insert_memory_marks(struct jit_block *b, size_t i, int bitmap_slot)
{
	b->insns[i].memory_marks_slot = bitmap_slot;
}

void jit_insert_trace_block(struct jit_block *b, int buffer_slot, int room_slot, uint32_t bytes,
			    uint32_t word, jit_callout_fn full, void *arg)
{
	b->trace =
	    (struct block_trace){buffer_slot, room_slot, -1, bytes, word, {full, arg, room_slot}};
}

void jit_insert_trace_skip(struct jit_block *b, int skip_slot)
{
	b->trace.skip_slot = skip_slot;
}

static bool add_trace_store(struct jit_block *b, size_t i, struct trace_store s)
{
	struct block_insn *bi = &b->insns[i];
	if (bi->trace_store_count >= BLOCK_MAX_TRACE_STORES)
		return false;
	bi->trace_stores[bi->trace_store_count++] = s;
	return true;
}

void jit_insert_trace_address(struct jit_block *b, size_t i, unsigned operand, uint32_t offset)
{
	if (operand < b->insns[i].insn.operand_count &&
	    block_insn_ops(&b->insns[i])[operand].type == ZYDIS_OPERAND_TYPE_MEMORY)
		add_trace_store(
		    b, i,
		    (struct trace_store){TRACE_STORE_ADDRESS, (uint8_t)operand, false, offset, 0});
}

bool jit_insert_trace_gpr(struct jit_block *b, size_t i, int reg, bool after, uint32_t offset)
{
	if (reg < 0 || reg >= 16 || (after && translate_ends_block(&b->insns[i])))
		return false;
	return add_trace_store(
	    b, i, (struct trace_store){TRACE_STORE_GPR, (uint8_t)reg, after, offset, 0});
}

bool jit_insert_trace_memory(struct jit_block *b, size_t i, unsigned operand,
			     uint32_t address_offset, uint32_t offset)
{
	const struct block_insn *bi = &b->insns[i];
	if (operand >= bi->insn.operand_count || !trace_memory_readable_after(bi, operand) ||
	    translate_ends_block(bi) || bi->trace_store_count + 2 > BLOCK_MAX_TRACE_STORES)
		return false;
	add_trace_store(
	    b, i,
	    (struct trace_store){TRACE_STORE_ADDRESS, (uint8_t)operand, false, address_offset, 0});
	return add_trace_store(b, i,
			       (struct trace_store){TRACE_STORE_MEMORY, (uint8_t)operand, true,
						    offset, address_offset});
}

void jit_insert_trace_condition(struct jit_block *b, size_t i, unsigned cc, uint32_t offset)
{
	add_trace_store(
	    b, i,
	    (struct trace_store){TRACE_STORE_CONDITION, (uint8_t)(cc & 15), false, offset, 0});
}

const uint8_t *jit_block_bytes(const struct jit_block *b, size_t i)
{
	return b->insns[i].bytes;
}

void jit_suppress_insn(struct jit_block *b, size_t i)
{
	b->insns[i].suppressed = true;
}

static jit_access_hook access_hook;

void jit_set_access_hook(jit_access_hook hook)
{
	access_hook = hook;
}
bool jit_grant_access(uint64_t addr, bool write)
{
	return (write && code_pages_write_fault(addr)) || (access_hook && access_hook(addr)) ||
	       code_pages_allows(addr, write);
}

uint32_t jit_real_prot(uint64_t addr, uint32_t prot)
{
	return (uint32_t)app_prot((long)code_pages_real_prot(addr, prot));
}

static bool read_once(void *dst, uint64_t addr, size_t len)
{
	struct iovec local = {dst, len};
	struct iovec remote = {(void *)addr, len};
	/* By thread id: the process's first thread may have exited (its pid then names a
	 * zombie without memory). */
	return rt_syscall6(SYS_process_vm_readv, thread_current_os_tid(), (long)&local, 1,
			   (long)&remote, 1, 0) == (long)len;
}

bool jit_read_app_memory(void *dst, uint64_t addr, size_t len)
{
	if (read_once(dst, addr, len))
		return true;
	if (!access_hook || !len)
		return false;
	/* Some page may be withheld: ask for each, then try again. */
	bool granted = false;
	for (uint64_t page = addr & ~0xfffull; page < addr + len; page += 0x1000)
		granted |= jit_grant_access(page, false);
	return granted && read_once(dst, addr, len);
}

bool instrument_grant_withheld(uint64_t addr)
{
	return access_hook && access_hook(addr);
}

int jit_copy_app_memory(void *dst, uint64_t addr, size_t len)
{
	int r = probe_read(dst, addr, len);
	return r < 0 ? probe_read_signal(r) : 0;
}

static bool write_once(uint64_t addr, const void *src, size_t len)
{
	struct iovec local = {(void *)src, len};
	struct iovec remote = {(void *)addr, len};
	return rt_syscall6(SYS_process_vm_writev, thread_current_os_tid(), (long)&local, 1,
			   (long)&remote, 1, 0) == (long)len;
}

bool jit_write_app_memory(uint64_t addr, const void *src, size_t len)
{
	if (write_once(addr, src, len))
		return true;
	if (!len)
		return false;
	/* A page may be withheld, or write-protected over translated code: ask for each (the
	 * code's translations retire), then try again. */
	bool granted = false;
	for (uint64_t page = addr & ~0xfffull; page < addr + len; page += 0x1000)
		granted |= jit_grant_access(page, true);
	return granted && write_once(addr, src, len);
}

static void *const *excluded;
static uint32_t excluded_count;

void instrument_exclude_first(void *const *args, uint32_t n)
{
	excluded = args;
	excluded_count = n;
}

void jit_insert_callout(struct jit_block *b, size_t i, jit_callout_fn fn, void *arg)
{
	for (uint32_t k = 0; i == 0 && k < excluded_count; k++)
		if (excluded[k] == arg)
			return;
	struct block_insn *bi = &b->insns[i];
	if (bi->callout_count < BLOCK_MAX_CALLOUTS)
		bi->callouts[bi->callout_count++] = (struct block_callout){fn, arg, -1};
}

void jit_insert_budget_check(struct jit_block *b, int slot, jit_callout_fn fn, void *arg)
{
	if (b->budget_count < BLOCK_MAX_BUDGETS)
		b->budgets[b->budget_count++] = (struct block_callout){fn, arg, slot};
}

uint64_t jit_thread_gpr(const struct jit_thread *t, int reg)
{
	return t->gpr[reg];
}
void jit_thread_set_gpr(struct jit_thread *t, int reg, uint64_t value)
{
	t->gpr[reg] = value;
}

void jit_thread_get_regs(const struct jit_thread *t, struct jit_regs *r)
{
	memcpy(r->gpr, t->gpr, sizeof r->gpr);
	r->rip = t->app_pc;
	r->rflags = t->rflags;
	r->fs_base = t->app_fs;
	r->gs_base = 0;
}

void jit_thread_set_regs(struct jit_thread *t, const struct jit_regs *r)
{
	memcpy(t->gpr, r->gpr, sizeof t->gpr);
	t->app_pc = r->rip;
	t->rflags = r->rflags;
	t->app_fs = r->fs_base;
}

const uint8_t *jit_thread_xsave(const struct jit_thread *t, size_t *len)
{
	*len = jit_xsave_size();
	return t->xsave_area;
}

void jit_thread_set_xsave(struct jit_thread *t, const uint8_t *data, size_t len)
{
	if (len > sizeof t->xsave_area)
		len = sizeof t->xsave_area;
	memcpy(t->xsave_area, data, len);
}

size_t jit_xsave_size(void)
{
	return threads_xsave_size();
}

void jit_stop_the_world(const struct jit_thread *self)
{
	world_stop(self);
}

void jit_request_safe_point(struct jit_thread *t)
{
	thread_want_safe_point(t);
	jit_flush_cache(); /* unlinks everything: the thread leaves at its block's end */
}

void jit_wait_unlocked(void (*wait)(void *arg), void *arg)
{
	runtime_unlock();
	park_wait(&thread_current()->park, wait, arg);
}

bool jit_thread_in_syscall(const struct jit_thread *t, long *nr)
{
	long n = __atomic_load_n(&t->syscall_in_progress, __ATOMIC_ACQUIRE);
	if (n < 0)
		return false;
	*nr = n;
	return true;
}

void jit_callout_safe_point(const struct jit_callout *c)
{
	if (!c->thread->safe_point_pending)
		return;
	c->thread->app_pc = c->pc;
	instrument_safe_point(c->thread, jit_callout_icount(c));
}

void jit_callout_restart_block(const struct jit_callout *c)
{
	c->thread->restart_block = true;
}

void jit_callout_abandon_block(const struct jit_callout *c)
{
	instrument_uncount(c->thread, c->pc, c->block_remaining, 0);
}

void jit_callout_limit_block(const struct jit_callout *c, uint32_t insns)
{
	uint32_t want = insns ? insns : 1, now = c->thread->block_limit;
	c->thread->block_limit = now && now < want ? now : want; /* the smallest limit holds */
}

/* A vfork child is no thread of the process the clients watch (instrument.h): none of
 * their per-thread hooks runs on it. */
bool instrument_syscall_pre(struct jit_thread *t, long nr, const long args[6])
{
	bool taken = false;
	if (t->vfork_child)
		return false;
	for (int i = 0; i < client_count && !taken; i++)
		if (clients[i]->syscall_pre)
			taken = clients[i]->syscall_pre(t, nr, args, clients[i]->arg);
	return taken;
}

bool instrument_syscall_efault(struct jit_thread *t, long nr, const long args[6])
{
	bool again = false;
	if (t->vfork_child)
		return false;
	for (int i = 0; i < client_count; i++)
		if (clients[i]->syscall_efault)
			again |= clients[i]->syscall_efault(t, nr, args, clients[i]->arg);
	return again;
}

void instrument_syscall_post(struct jit_thread *t, long nr, const long args[6], long result)
{
	if (t->vfork_child)
		return;
	for (int i = 0; i < client_count; i++)
		if (clients[i]->syscall_post)
			clients[i]->syscall_post(t, nr, args, result, clients[i]->arg);
}

void instrument_signal_delivery(struct jit_thread *t, int sig, const void *info,
				const struct jit_sigaction *act, uint64_t old_mask)
{
	if (t->vfork_child)
		return;
	for (int i = 0; i < client_count; i++)
		if (clients[i]->signal_delivery)
			clients[i]->signal_delivery(t, sig, info, act, old_mask, clients[i]->arg);
}

bool instrument_filters_signals(void)
{
	for (int i = 0; i < client_count; i++)
		if (clients[i]->signal_filter)
			return true;
	return false;
}

bool instrument_signal_filter(struct jit_thread *t, int sig, const void *info)
{
	bool pass = true;
	for (int i = 0; i < client_count && !t->vfork_child; i++)
		if (clients[i]->signal_filter)
			pass &= clients[i]->signal_filter(t, sig, info, clients[i]->arg);
	return pass;
}

void instrument_safe_point(struct jit_thread *t, uint64_t icount)
{
	thread_take_safe_point(t);
	if (t->vfork_child)
		return;
	for (int i = 0; i < client_count; i++)
		if (clients[i]->safe_point)
			clients[i]->safe_point(t, icount, clients[i]->arg);
}

void jit_thread_slot_set(struct jit_thread *t, int slot, uint64_t value)
{
	t->client_slots[slot] = value;
}
uint64_t jit_thread_slot_get(const struct jit_thread *t, int slot)
{
	return t->client_slots[slot];
}

void jit_request_retranslation(void)
{
	jit_flush_cache();
}

void jit_request_retranslation_in_forked_child(const struct jit_thread *t)
{
	if (threads_live() == 1 && !t->vfork_child && t->syscall_in_progress >= 0)
		jit_reset_cache_alone();
	else
		jit_flush_cache();
}

void jit_request_retranslation_at(const uint64_t *pcs, size_t n)
{
	jit_flush_pcs(pcs, n);
}

void instrument_uncount(struct jit_thread *t, uint64_t pc, uint32_t remaining,
			uint32_t budget_slots)
{
	budget_slots = icount_uncount(t, remaining, budget_slots);
	for (int s = 0; s < TB_CLIENT_SLOT_COUNT; s++)
		if (budget_slots & (1u << s))
			t->client_slots[s] += remaining;
	for (int i = 0; i < client_count && !t->vfork_child; i++)
		if (clients[i]->block_left)
			clients[i]->block_left(t, pc, clients[i]->arg);
}

void instrument_rep_left(struct jit_thread *t, const struct rep_counts *rep, uint64_t left)
{
	if (rep->up >= 0)
		t->client_slots[rep->up] -= left;
	if (rep->down >= 0)
		t->client_slots[rep->down] += left;
	for (int s = 0; s < TB_CLIENT_SLOT_COUNT; s++)
		if (rep->budgets & (1u << s))
			t->client_slots[s] += left;
	if (rep->table >= 0)
		((uint64_t *)t->client_slots[rep->table])[rep->table_index] -= left;
}

void instrument_thread_start(struct jit_thread *t, uint64_t pc)
{
	for (int i = 0; i < client_count; i++)
		if (clients[i]->thread_start)
			clients[i]->thread_start(t, pc, clients[i]->arg);
}

void instrument_image_mapped(const char *path, uint64_t start, uint64_t end, uint64_t offset)
{
	for (int i = 0; i < client_count; i++)
		if (clients[i]->image_mapped)
			clients[i]->image_mapped(path, start, end, offset, clients[i]->arg);
}

void instrument_block(struct jit_block *b)
{
	icount_block(b);
	for (int i = 0; i < client_count; i++)
		if (clients[i]->instrument_block)
			clients[i]->instrument_block(b, clients[i]->arg);
}

bool instrument_blocks_wanted(void)
{
	for (int i = 0; i < client_count; i++)
		if (clients[i]->instrument_block)
			return true;
	return icount_is_striped() || icount_is_countdown();
}

bool instrument_may_keep(void)
{
	for (int i = 0; i < client_count; i++)
		if (clients[i]->instrument_block && !clients[i]->keep_tag)
			return false;
	return !icount_is_countdown();
}

/* The clients' kept callouts in turn, then the runtime's own (cpuid_table.h). */
int instrument_kept_callout_number(jit_callout_fn fn)
{
	int n = 0;
	for (int i = 0; i < client_count; i++)
		for (const jit_callout_fn *k = clients[i]->kept_callouts; k && *k; k++, n++)
			if (*k == fn)
				return n;
	return fn == cpuid_table_answer ? n : -1;
}

jit_callout_fn instrument_kept_callout(uint32_t number)
{
	uint32_t n = 0;
	for (int i = 0; i < client_count; i++)
		for (const jit_callout_fn *k = clients[i]->kept_callouts; k && *k; k++, n++)
			if (n == number)
				return *k;
	return n == number ? cpuid_table_answer : NULL;
}

bool instrument_keep_tag(uint64_t *tag)
{
	uint64_t all = 0;
	for (int i = 0; i < client_count; i++) {
		if (!clients[i]->instrument_block)
			continue;
		uint64_t t = clients[i]->keep_tag ? clients[i]->keep_tag(clients[i]->arg) : 0;
		if (!t)
			return false;
		/* (clients' tags are their own: each is told apart by its name) */
		for (const char *c = clients[i]->name ? clients[i]->name : ""; *c; c++)
			all = (all ^ (uint8_t)*c) * 0x100000001b3ull;
		all = (all ^ t) * 0x100000001b3ull;
	}
	*tag = all;
	return !icount_is_countdown();
}

bool instrument_vfork_shares_memory(void)
{
	for (int i = 0; i < client_count; i++)
		if (!clients[i]->vfork_shares_memory ||
		    !clients[i]->vfork_shares_memory(clients[i]->arg))
			return false;
	return true;
}

void instrument_app_dies(struct jit_thread *t, int sig, enum jit_death_place where)
{
	if (t->vfork_child)
		return;
	for (int i = 0; i < client_count; i++)
		if (clients[i]->app_dies)
			clients[i]->app_dies(t, sig, where, clients[i]->arg);
}

void instrument_before_exec(struct jit_thread *t)
{
	if (t->vfork_child)
		return;
	for (int i = 0; i < client_count; i++)
		if (clients[i]->before_exec)
			clients[i]->before_exec(t, clients[i]->arg);
}

void instrument_at_exit(int status)
{
	for (int i = 0; i < client_count; i++)
		if (clients[i]->at_exit)
			clients[i]->at_exit(status, clients[i]->arg);
}

/* Shifts and rotates by a count that may be zero leave the flags untouched then: they may
 * not be counted as writing them. */
static bool writes_flags_conditionally(const struct block_insn *bi)
{
	switch (bi->insn.mnemonic) {
	case ZYDIS_MNEMONIC_SHL:
	case ZYDIS_MNEMONIC_SHR:
	case ZYDIS_MNEMONIC_SAR:
	case ZYDIS_MNEMONIC_ROL:
	case ZYDIS_MNEMONIC_ROR:
	case ZYDIS_MNEMONIC_RCL:
	case ZYDIS_MNEMONIC_RCR:
	case ZYDIS_MNEMONIC_SHLD:
	case ZYDIS_MNEMONIC_SHRD: {
		const ZydisDecodedOperand *count =
		    &block_insn_ops(bi)[bi->insn.operand_count_visible - 1];
		return count->type != ZYDIS_OPERAND_TYPE_IMMEDIATE || count->imm.value.u == 0;
	}
	default:
		return false;
	}
}

/* Instructions that give the whole flags register to someone else (the kernel saves it in
 * r11 at a syscall, a handler sees it in its signal frame) read every flag. */
static bool hands_flags_over(const struct block_insn *bi)
{
	switch (bi->insn.mnemonic) {
	case ZYDIS_MNEMONIC_SYSCALL:
	case ZYDIS_MNEMONIC_SYSENTER:
	case ZYDIS_MNEMONIC_INT:
	case ZYDIS_MNEMONIC_INT1:
	case ZYDIS_MNEMONIC_INT3:
	case ZYDIS_MNEMONIC_INTO:
	case ZYDIS_MNEMONIC_UD0:
	case ZYDIS_MNEMONIC_UD1:
	case ZYDIS_MNEMONIC_UD2:
	case ZYDIS_MNEMONIC_HLT:
	case ZYDIS_MNEMONIC_PUSHF:
	case ZYDIS_MNEMONIC_PUSHFD:
	case ZYDIS_MNEMONIC_PUSHFQ:
		return true;
	default:
		return false;
	}
}

enum flags_use block_flags_use(const struct jit_block *b, size_t from, uint32_t *written)
{
	const ZydisAccessedFlagsMask status = ZYDIS_CPUFLAG_CF | ZYDIS_CPUFLAG_PF |
					      ZYDIS_CPUFLAG_AF | ZYDIS_CPUFLAG_ZF |
					      ZYDIS_CPUFLAG_SF | ZYDIS_CPUFLAG_OF;
	for (size_t i = from; i < b->length; i++) {
		const ZydisAccessedFlags *f = b->insns[i].insn.cpu_flags;
		if (!f || hands_flags_over(&b->insns[i]))
			return FLAGS_READ;
		if (f->tested & status & ~*written)
			return FLAGS_READ;
		if (writes_flags_conditionally(&b->insns[i]))
			continue;
		/* "Undefined" flags may be left as they were by the hardware: they do not count
		 * as written, except AF (undefined after logical instructions, shifts and
		 * multiplications: most blocks), which no x86-64 instruction reads but pushf
		 * and lahf, and no compiler's code reads at all. */
		*written |=
		    (f->modified | f->set_0 | f->set_1 | (f->undefined & ZYDIS_CPUFLAG_AF)) &
		    status;
		if (*written == status)
			return FLAGS_WRITTEN;
	}
	return FLAGS_UNDECIDED;
}

bool block_flags_live_from(const struct jit_block *b, size_t from)
{
	uint32_t written = 0;
	enum flags_use use = block_flags_use(b, from, &written);
	return use == FLAGS_READ || (use == FLAGS_UNDECIDED && !b->flags_dead_after);
}

size_t jit_thread_count(void)
{
	return threads_count();
}
struct jit_thread *jit_thread_at(size_t index)
{
	return threads_at(index);
}
uint32_t jit_thread_id(const struct jit_thread *t)
{
	return t->tid;
}

int32_t jit_thread_os_tid(const struct jit_thread *t)
{
	return t->os_tid;
}
bool jit_thread_exited(const struct jit_thread *t)
{
	return __atomic_load_n(&t->exited, __ATOMIC_ACQUIRE) != 0;
}

size_t jit_thread_live_count(void)
{
	return threads_live();
}

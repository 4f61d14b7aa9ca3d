/* A decoded basic block as the translator and the clients see it, with the insertions
 * clients asked for. Internal to the JIT; clients use instrument.h. */
#ifndef JIT_BLOCK_H
#define JIT_BLOCK_H

#include <Zydis/Zydis.h>
#include <stdbool.h>
#include <stdint.h>

#include "instrument.h"

enum {
	BLOCK_MAX_INSNS = JIT_MAX_BLOCK_LENGTH,
	BLOCK_MAX_COUNTERS = 8,
	BLOCK_MAX_CALLOUTS = 4,
	BLOCK_MAX_BUDGETS = 8,	     /* a split budget's slots, and others' */
	BLOCK_MAX_TRACE_STORES = 24, /* all 16 registers, 4 addresses, a condition... */
};

struct block_callout {
	jit_callout_fn fn;
	void *arg;
	int slot; /* budget checks only */
};

/* A value an inline trace record holds (jit_insert_trace_*). */
enum trace_store_kind {
	TRACE_STORE_ADDRESS,
	TRACE_STORE_GPR,
	TRACE_STORE_CONDITION,
	TRACE_STORE_MEMORY, /* after: the bytes at the address stored at `from` */
};
struct trace_store {
	uint8_t kind;
	uint8_t what; /* the operand, the register or the condition code */
	bool after;   /* GPRs: after the instruction */
	uint32_t offset;
	uint32_t from; /* TRACE_STORE_MEMORY: the record offset of the operand's address */
};

struct block_insn {
	uint64_t pc;
	const uint8_t *bytes; /* into the fetch buffer */
	ZydisDecodedInstruction insn;
	/* The operands, decoded when first asked for (block_insn_ops): most instructions are
	 * copied without them, and decoding them is a third of a decode's time. */
	ZydisDecoderContext context;
	bool ops_decoded;
	ZydisDecodedOperand ops_[ZYDIS_MAX_OPERAND_COUNT];
	int rep_counter_slot; /* -1: none */
	int rep_down_slot;    /* -1: none; else its iterations also go down in that slot */
	int rep_table_slot;   /* -1: none; else its iterations go to entry rep_table_index */
	uint32_t rep_table_index;
	int memory_marks_slot; /* -1: none; else the lines it accesses are marked */
	struct block_callout callouts[BLOCK_MAX_CALLOUTS];
	int callout_count;
	struct trace_store trace_stores[BLOCK_MAX_TRACE_STORES];
	int trace_store_count;
	bool suppressed;
};

struct block_counter {
	int slot;
	uint32_t amount;
};

struct block_table_counter {
	int table_slot; /* -1: none */
	int index_slot; /* -1: none */
	uint32_t index;
};

/* The block's inline trace record (jit_insert_trace_block); buffer_slot -1: none.
 * skip_slot (-1: none): while it is non-zero, a copy without the record runs. */
struct block_trace {
	int buffer_slot, room_slot, skip_slot;
	uint32_t bytes, word;
	struct block_callout full;
};

/* A basic block as clients instrument it. A fragment may hold several that fall through
 * into each other (translate.c): their instructions are consecutive in one array. */
struct jit_block {
	uint64_t start_pc;
	size_t length;
	struct block_insn *insns;
	struct block_counter counters[BLOCK_MAX_COUNTERS];
	size_t counter_count;
	struct block_callout budgets[BLOCK_MAX_BUDGETS];
	int budget_count;
	struct block_table_counter table_counter;
	struct block_trace trace;
	/* The flags are written before they are read where its branch goes (flags_ahead.h). */
	bool flags_dead_after;
};

/* bi's operands (decoded on the first call; an instruction of the block being translated). */
const ZydisDecodedOperand *block_insn_ops(const struct block_insn *bi);

/* Runs every registered client over the block. */
void instrument_block(struct jit_block *b);
/* Whether anything may be inserted into blocks: the instruction count, or a client that
 * instruments them. */
bool instrument_blocks_wanted(void);
/* Whether a block's translation may depend on nothing but its code (persist.h): every
 * client that instruments blocks says when (keep_tag), and the instruction count, if kept,
 * is striped. */
bool instrument_may_keep(void);
/* Whether it does now, and then under which tag (0: no client instruments blocks). */
bool instrument_keep_tag(uint64_t *tag);
/* The clients' kept callouts (jit_client.kept_callouts) in one numbering, the same in
 * every process of a build and configuration: fn's number, or -1 when it is none; the
 * function of a number, or NULL. */
int instrument_kept_callout_number(jit_callout_fn fn);
jit_callout_fn instrument_kept_callout(uint32_t number);
/* A page the client withholds (first-touch recording) given back before the runtime reads
 * it, so that the read takes no fault: whether it was one. */
bool instrument_grant_withheld(uint64_t addr);
void instrument_at_exit(int status);
void instrument_app_dies(struct jit_thread *t, int sig, enum jit_death_place where);
void instrument_before_exec(struct jit_thread *t);
/* Whether every client lets a vfork child run in the parent's memory now. */
bool instrument_vfork_shares_memory(void);
void instrument_thread_start(struct jit_thread *t, uint64_t pc);
void instrument_image_mapped(const char *path, uint64_t start, uint64_t end, uint64_t offset);
bool instrument_syscall_pre(struct jit_thread *t, long nr, const long args[6]);
bool instrument_syscall_efault(struct jit_thread *t, long nr, const long args[6]);
void instrument_syscall_post(struct jit_thread *t, long nr, const long args[6], long result);
void instrument_safe_point(struct jit_thread *t, uint64_t icount);
/* Whether every client lets the signal reach the app (signal_filter). */
bool instrument_signal_filter(struct jit_thread *t, int sig, const void *info);
bool instrument_filters_signals(void); /* some client has a signal_filter */
void instrument_signal_delivery(struct jit_thread *t, int sig, const void *info,
				const struct jit_sigaction *act, uint64_t old_mask);

/* While set, jit_insert_callout drops callouts on a block's first instruction whose
 * argument is listed (translate_block_excluding). */
void instrument_exclude_first(void *const *args, uint32_t n);

/* A thread leaves a block before its last `remaining` counted instructions ran, the first
 * of them at pc: take them back out of the instruction count, give them back to the
 * budgets in `budget_slots`, and tell the clients (block_left). */
void instrument_uncount(struct jit_thread *t, uint64_t pc, uint32_t remaining,
			uint32_t budget_slots);

/* A REP string instruction counted as rep says stopped with `left` iterations not run (a
 * fault among them): takes them back, as its translation would after it. */
struct rep_counts;
void instrument_rep_left(struct jit_thread *t, const struct rep_counts *rep, uint64_t left);

/* Whether instruction i is counted at block start (REP string ones count per iteration). */
bool instrument_counted(const struct jit_block *b, size_t i);

/* How the status flags fare from instruction `from` to the end of the block: one is read
 * before it is written, all are written, or neither by the end. `written`: the flags
 * written before, and on return those written by where it stopped. */
enum flags_use { FLAGS_READ, FLAGS_WRITTEN, FLAGS_UNDECIDED };
enum flags_use block_flags_use(const struct jit_block *b, size_t from, uint32_t *written);

/* True when some status flag may be read before it is written, from instruction `from`
 * to the end of the block (its exits count as reads, unless flags_dead_after). */
bool block_flags_live_from(const struct jit_block *b, size_t from);

#endif

#include "translate.h"

#include <string.h>
#include <sys/mman.h>

#include "block.h"
#include "code_cache.h"
#include "code_pages.h"
#include "config.h"
#include "constant_slot.h"
#include "count_groups.h"
#include "count_place.h"
#include "cpuid_table.h"
#include "emit_instrumentation.h"
#include "flags_ahead.h"
#include "flush.h"
#include "forked_code.h"
#include "instruction_count.h"
#include "memory_marks.h"
#include "messages.h"
#include "operand_address.h"
#include "perf_map.h"
#include "persist.h"
#include "probe_read.h"
#include "rt_syscall.h"
#include "table_jump.h"
#include "thread_block.h"
#include "threads.h"
#include "x86_emit.h"

enum {
	PAGE = 4096,
	FETCH_MAX = BLOCK_MAX_INSNS * ZYDIS_MAX_INSTRUCTION_LENGTH,
	READABLE_SLOTS = 4096,
	CACHE_PER_INSN = 256 + 4 * 32, /* an indirect call with its lookup, and callouts */
	CACHE_PER_BLOCK = 512,
	/* a REP string instruction's parts, its counters in each (emit_rep_in_parts) */
	CACHE_REP_IN_PARTS = 1024,
	/* Per copy of the block (a block with a copy without its trace record has two). */
	MAX_EXITS = 4,
	MAX_CONSTANTS = 2,
	MAX_COPIES = 2,
	/* Basic blocks a fragment may chain through their fall-through paths. */
	MAX_CHAIN = COUNT_GROUP_MAX_BLOCKS,
	/* A block's code for its count group: the count taken back on its branch out, or
	 * added (or checked, and its callout) at an entry into it (count_groups.h). */
	CACHE_PER_GROUP_BLOCK = 3 * 64,
	/* How far ahead a conditional branch jumps for its fall-through to share the count
	 * (may_share_count): 64 and 256 measured the same, 0 (every forward branch) and 1024
	 * worse on the python loop. */
	FAR_BRANCH = 128,
	/* How far back (may_share_count): nearer backward branches are loops' and others taken
	 * as often as not (in sqlite, gzip, xz and sort 20-60% of those between 128 bytes and
	 * 64 KiB back fall through). */
	FAR_BACK_BRANCH = 64 << 10,
	/* The last block's exits in both copies, and two for each block before it (its
	 * branch taken, and its end: emit_chained_block_end). */
	MAX_FRAGMENT_EXITS = MAX_COPIES * MAX_EXITS + 2 * (MAX_CHAIN - 1),
	/* every exit of a persisted fragment, its stubs inline in the blocks' code included */
	MAX_MADE_EXITS = 2 * MAX_FRAGMENT_EXITS,
	MAX_CONSTANT_SLOTS = 8 + FLAGS_AHEAD_MAX_WORDS,
};

struct jit_exit translate_indirect_exit = {.kind = EXIT_INDIRECT};
struct translate_stats translate_stats;

static ZydisDecoder decoder;
/* The basic blocks of the fragment being translated, their instructions in one array
 * (at most BLOCK_MAX_INSNS in all, so one fetch holds them), and the one being emitted. */
static struct block_insn chain_insns[BLOCK_MAX_INSNS];
static struct jit_block chain[MAX_CHAIN];
static size_t chain_length;
/* The app words outside the chain that its flags judgements rely on (flags_ahead.h). */
static struct flags_ahead_words ahead_words;
static struct jit_block block;
static struct count_groups groups;
static uint8_t fetch_buf[FETCH_MAX + 16];
static uint64_t fetch_pc;
static size_t fetch_length;

/* Branches of the block body that go to exit stubs, emitted after the body; `link_to`
 * is the known fragment it is linked to at once, if any. */
struct pending_exit {
	struct jit_exit *rec;
	uint8_t *field;
	const struct fragment *link_to;
};

/* 64-bit constants placed after the fragment's stubs and read RIP-relative. */
struct pending_constant {
	uint64_t value;
	uint8_t *field; /* rel32 of the instruction that reads it */
};

/* A branch out of the middle of a count group, whose taken path goes through code that
 * takes the rest of the group back out of the count before it goes on to the target. */
struct pending_uncount {
	uint8_t *field; /* the branch's rel32 */
	uint64_t target;
	int slot;
	uint32_t rest;
	bool flags_live; /* at the target */
};

/* A check's callout, placed after the block's code so that the check's usual outcome
 * falls through: the js to patch, and whether the flags are to be restored there. */
struct pending_check {
	uint8_t *field;
	struct jit_exit *rec;
	bool restore_flags;
};

struct translation {
	struct emitter e;
	const struct fragment *fragment;
	uint64_t app_pc;
	/* the block being emitted (chain[block_index]) falls through into the next one */
	bool falls_into_next;
	/* ... through its conditional branch taken, not through its fall-through path */
	bool next_is_taken;
	/* the block has a callout that may want the thread to leave at the block's end (a
	 * client's, a budget check's but the count's countdown's, a full trace buffer's) */
	bool block_calls_out;
	/* the app may write the chain's code where it is (code_pages_may_change) */
	bool code_may_change;
	size_t block_index;
	/* where each block of the chain after the first starts, its indirect entry, and where
	 * a branch from elsewhere enters it (its code, or what adds its group's count first) */
	uint8_t *block_code[MAX_CHAIN];
	uint8_t *block_entry[MAX_CHAIN];
	uint8_t *block_direct_entry[MAX_CHAIN];
	uint8_t *block_mismatch[MAX_CHAIN]; /* the rel32 of its indirect entry's mismatch jump */
	struct pending_uncount uncounts[MAX_CHAIN];
	int uncount_count;
	/* one past the app bytes the code was made from, beyond the blocks' own: those that
	 * flags_dead_at looked at (0: none) */
	uint64_t looked_at_end;
	struct pending_exit exits[MAX_FRAGMENT_EXITS];
	int exit_count;
	/* the budgets and the trace room */
	/* (a REP string instruction's part of one iteration checks the budgets again) */
	struct pending_check checks[(MAX_COPIES + MAX_CHAIN) * (BLOCK_MAX_BUDGETS + 1) +
				    MAX_COPIES * BLOCK_MAX_BUDGETS];
	int check_count;
	struct pending_constant constants[MAX_COPIES * MAX_CONSTANTS];
	int constant_count;
	/* in cache order; a REP string instruction run in parts has two more */
	struct insn_map insns[MAX_COPIES * (BLOCK_MAX_INSNS + 2)];
	int insn_count;
	/* the block's counter updates go into its indirect branch's lookup (count_place.h) */
	bool count_in_lookup;
	/* the register the instruction being emitted borrows, plus one (insn_map) */
	uint8_t borrowed_reg;
	/* the block ends in a jump through a constant table (table_jump.h) */
	bool has_table_jump;
	struct table_jump table_jump;
	/* What persist.h keeps of it: every exit made for it, the constant slots its code
	 * relies on; or that it cannot be kept (a callout's record names the client's data). */
	struct jit_exit *made[MAX_MADE_EXITS];
	int made_count;
	struct persist_slot slots[MAX_CONSTANT_SLOTS];
	int slot_count;
	bool not_persistable;
	bool failed;
};

static uint32_t slot_offset(int slot)
{
	return TB_CLIENT_SLOTS + 8u * (uint32_t)slot;
}

/* Points the rel32 branch at `field` to `to` (once the code fits). */
static void patch_branch(const struct translation *t, uint8_t *field, const uint8_t *to)
{
	if (!t->e.overflow)
		patch_rel32(field, to);
}

void translate_init(void)
{
	ZydisDecoderInit(&decoder, ZYDIS_MACHINE_MODE_LONG_64, ZYDIS_STACK_WIDTH_64);
}

/* Pages known to be readable, so that fetching code is a plain copy. A page is probed
 * once (probe_read.h: a fault there fails cleanly); the app's munmap,
 * mprotect and friends clear the pages they name (a new mapping makes none unreadable).
 * Direct-mapped on the page number (+1; 0 = empty). */
static uint64_t readable_pages[READABLE_SLOTS];

void translate_forget_readable_range(uint64_t addr, uint64_t len)
{
	uint64_t first = addr / PAGE, end = (addr + len + PAGE - 1) / PAGE;
	if (len >= READABLE_SLOTS * (uint64_t)PAGE || end <= first) {
		memset(readable_pages, 0, sizeof readable_pages);
		return;
	}
	for (uint64_t page = first; page < end; page++) {
		uint64_t *slot = &readable_pages[page & (READABLE_SLOTS - 1)];
		if (*slot == page + 1)
			*slot = 0;
	}
}

static bool page_readable(uint64_t page)
{
	uint64_t *slot = &readable_pages[page & (READABLE_SLOTS - 1)];
	if (*slot == page + 1)
		return true;
	instrument_grant_withheld(page * PAGE); /* (the probe's fault costs a signal) */
	if (probe_read_byte(page * PAGE) < 0)
		return false;
	*slot = page + 1;
	return true;
}

/* App code is read with probe_read even on pages known to be readable: a page of a file
 * the app (or anyone) truncated since is past its end, and reading it raises SIGBUS, which
 * must be the app's fault at its fetch, not the runtime's crash. */
static bool app_bytes_equal(uint64_t pc, const uint8_t *bytes, size_t len)
{
	uint8_t app[256];
	for (size_t done = 0; done < len;) {
		size_t n = len - done < sizeof app ? len - done : sizeof app;
		if (probe_read(app, pc + done, n) < 0 || memcmp(app, bytes + done, n))
			return false;
		done += n;
	}
	return true;
}

bool translate_app_code_equals(uint64_t pc, const uint8_t *bytes, size_t len)
{
	for (uint64_t page = pc / PAGE; page <= (pc + len - 1) / PAGE; page++)
		if (!page_readable(page))
			return false;
	return app_bytes_equal(pc, bytes, len);
}

/* Copies up to FETCH_MAX bytes of app code at pc, stopping at the first unreadable page. */
static size_t fetch_code(uint64_t pc)
{
	size_t n = 0;
	while (n < FETCH_MAX) {
		uint64_t at = pc + n;
		if (!page_readable(at / PAGE))
			break;
		size_t chunk = PAGE - (at & (PAGE - 1));
		if (chunk > FETCH_MAX - n)
			chunk = FETCH_MAX - n;
		if (probe_read(fetch_buf + n, at, chunk) < 0) {
			translate_forget_readable_range(at & ~(uint64_t)(PAGE - 1), PAGE);
			break;
		}
		n += chunk;
	}
	return n;
}

size_t translate_decode_run(const uint8_t *bytes, size_t len, uint64_t pc, struct jit_block *b,
			    size_t max)
{
	size_t off = 0;
	while (b->length < max && off < len) {
		struct block_insn *bi = &b->insns[b->length];
		if (ZYAN_FAILED(ZydisDecoderDecodeInstruction(&decoder, &bi->context, bytes + off,
							      len - off, &bi->insn)))
			break;
		bi->pc = pc + off;
		bi->bytes = bytes + off;
		bi->ops_decoded = false;
		b->length++;
		off += bi->insn.length;
		if (translate_ends_block(bi))
			break;
	}
	return off;
}

const ZydisDecodedOperand *block_insn_ops(const struct block_insn *bi)
{
	struct block_insn *cache = (struct block_insn *)bi; /* the operands are a cache */
	if (!bi->ops_decoded) {
		if (ZYAN_FAILED(ZydisDecoderDecodeOperands(&decoder, &cache->context, &cache->insn,
							   cache->ops_, ZYDIS_MAX_OPERAND_COUNT)))
			jit_fatal("cannot decode the operands of the instruction at 0x%lx", bi->pc);
		cache->ops_decoded = true;
	}
	return bi->ops_;
}

/* In 64-bit code, ModRM's mod 0 and r/m 5 is the only RIP-relative form. */
static bool may_be_rip_relative(const struct block_insn *bi)
{
	return (bi->insn.attributes & ZYDIS_ATTRIB_HAS_MODRM) && bi->insn.raw.modrm.mod == 0 &&
	       bi->insn.raw.modrm.rm == 5;
}

static const ZydisDecodedOperand *rip_relative_operand(const struct block_insn *bi)
{
	if (!may_be_rip_relative(bi))
		return NULL;
	const ZydisDecodedOperand *ops = block_insn_ops(bi);
	for (unsigned i = 0; i < bi->insn.operand_count; i++)
		if (ops[i].type == ZYDIS_OPERAND_TYPE_MEMORY &&
		    ops[i].mem.base == ZYDIS_REGISTER_RIP)
			return &ops[i];
	return NULL;
}

/* A memory access through %gs, which is the runtime's. NOPs (hint NOPs with a memory
 * operand), prefetches and lea name an address without reaching memory through it. */
static bool uses_gs(const struct block_insn *bi)
{
	switch (bi->insn.meta.category) {
	case ZYDIS_CATEGORY_NOP:
	case ZYDIS_CATEGORY_WIDENOP:
	case ZYDIS_CATEGORY_PREFETCH:
		return false;
	default:
		break;
	}
	if (!(bi->insn.attributes & ZYDIS_ATTRIB_HAS_SEGMENT_GS))
		return false; /* %gs reaches memory only through its prefix */
	const ZydisDecodedOperand *ops = block_insn_ops(bi);
	for (unsigned i = 0; i < bi->insn.operand_count; i++)
		if (ops[i].type == ZYDIS_OPERAND_TYPE_MEMORY &&
		    ops[i].mem.type == ZYDIS_MEMOP_TYPE_MEM &&
		    ops[i].mem.segment == ZYDIS_REGISTER_GS)
			return true;
	return false;
}

/* mov %rax,%gs:scratch; movabs $rec,%rax; jmp *%gs:enter_dispatch */
static void emit_exit_stub(struct emitter *e, const struct jit_exit *rec)
{
	emit_store_gs(e, JIT_GPR_RAX, TB_SCRATCH_RAX);
	emit_movabs(e, JIT_GPR_RAX, (uint64_t)rec);
	emit_jmp_gs(e, TB_ENTER_DISPATCH);
}

/* An exit stub's length, and where its record's address sits in it: the same for every
 * record (movabs's immediate has 8 bytes whatever the value). Made once, under the runtime
 * lock or before any thread runs. */
struct stub_layout {
	size_t length;
	size_t record_at;
};

static struct stub_layout stub_layout(void)
{
	enum { MOVABS_IMM = 2 }; /* REX.W and the opcode before the immediate */
	static struct stub_layout layout;
	if (!layout.length) {
		uint8_t scratch[64];
		struct emitter e = {scratch, scratch, scratch + sizeof scratch, false};
		emit_store_gs(&e, JIT_GPR_RAX, TB_SCRATCH_RAX);
		layout.record_at = (size_t)(e.cur - e.start) + MOVABS_IMM;
		e.cur = e.start;
		emit_exit_stub(&e, &translate_indirect_exit);
		layout.length = (size_t)(e.cur - e.start);
	}
	return layout;
}

void translate_stub_set_record(uint8_t *stub, const struct jit_exit *rec)
{
	uint64_t address = (uint64_t)rec;
	memcpy(stub + stub_layout().record_at, &address, sizeof address);
}

size_t translate_stub_length(void)
{
	return stub_layout().length;
}

/* Remembers rec among the exits persist.h keeps of the translation. */
static void made(struct translation *t, struct jit_exit *rec, bool keepable)
{
	if (!keepable || t->made_count == MAX_MADE_EXITS)
		t->not_persistable = true;
	else
		t->made[t->made_count++] = rec;
}

/* A new exit record of the translation (NULL, and the translation failed, when out of
 * memory). A callout's is remembered by new_callout_exit, which knows whether it may be
 * kept. */
static struct jit_exit *new_exit(struct translation *t, enum exit_kind kind, uint64_t target)
{
	struct jit_exit *rec = fragment_new_exit(kind, target);
	if (!rec) {
		t->failed = true;
		return NULL;
	}
	if (kind != EXIT_CALLOUT)
		made(t, rec, true);
	return rec;
}

uint8_t *translate_lasting_stub(const struct jit_exit *rec)
{
	enum { SIZE = 4096 };
	long page = rt_mmap(NULL, SIZE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (rt_is_error(page))
		return NULL;
	struct emitter e = {(uint8_t *)page, (uint8_t *)page, (uint8_t *)page + SIZE, false};
	emit_exit_stub(&e, rec);
	rt_mprotect((void *)page, SIZE, PROT_READ | PROT_EXEC);
	return (uint8_t *)page;
}

static void emit_inline_exit(struct translation *t, enum exit_kind kind, uint64_t target)
{
	struct jit_exit *rec = new_exit(t, kind, target);
	if (!rec)
		return;
	rec->stub = t->e.cur;
	emit_exit_stub(&t->e, rec);
}

/* A branch to app pc `target`: straight to its fragment when one exists and is in reach,
 * else through a stub that the dispatcher will link. `field` is the branch's rel32. */
static void route_branch(struct translation *t, uint8_t *field, uint64_t target)
{
	struct fragment *known = fragment_lookup(target);
	struct jit_exit *rec = new_exit(t, EXIT_DIRECT, target);
	if (!rec || t->exit_count == MAX_FRAGMENT_EXITS) {
		t->failed = true;
		return;
	}
	/* Even a branch linked at once keeps its stub, so that it can be unlinked. */
	bool reach = known && threads_may_link() && rel32_reaches(field, known->cache_pc);
	t->exits[t->exit_count++] = (struct pending_exit){rec, field, reach ? known : NULL};
}

static void emit_direct_jump(struct translation *t, uint64_t target)
{
	uint8_t *field = emit_jmp_rel32(&t->e, t->e.cur);
	route_branch(t, field, target);
}

static uint64_t branch_target(const struct block_insn *bi)
{
	ZyanU64 target = 0;
	ZydisCalcAbsoluteAddress(&bi->insn, &block_insn_ops(bi)[0], bi->pc, &target);
	return target;
}

enum { EMIT_KEEP_FLAGS = -2 };

/* The block's counter updates: a plain add (how -1), through %rax kept in the thread block
 * (EMIT_KEEP_FLAGS), or through a dead register (count_place.h). */
static void emit_counters(struct translation *t, int how)
{
	for (size_t i = 0; i < block.counter_count; i++) {
		uint32_t off = slot_offset(block.counters[i].slot);
		if (how == EMIT_KEEP_FLAGS)
			emit_add_gs_keep_flags(&t->e, off, block.counters[i].amount);
		else if (how >= 0)
			emit_add_gs_through(&t->e, how, off, block.counters[i].amount);
		else
			emit_add_gs(&t->e, off, block.counters[i].amount);
	}
}

static void note_constant_slot(struct translation *t, uint64_t slot, uint64_t target)
{
	if (t->slot_count == MAX_CONSTANT_SLOTS)
		t->not_persistable = true;
	else
		t->slots[t->slot_count++] = (struct persist_slot){slot, target};
}

/* jmp *%gs:d32(,%r11,8) */
static const uint8_t jump_through_r11[] = {0x65, 0x42, 0xff, 0x24, 0xdd};

/* The indirect-branch lookup, without touching flags: the app target is in %rcx, the app's
 * %rcx in TB_SCRATCH_RCX. Jumps through the thread's table to the indirect entry of the
 * fragment that last took this slot (which checks the target), or to jit_ibl_miss. The
 * index goes through %r11 (the app's in TB_SCRATCH_REG), not %rax: the app's %rax is most
 * often what a return hands back and the code there reads at once, and every trip through
 * memory (a store, then a load forwarded from it) would lengthen that dependency. */
static void emit_indirect_lookup(struct translation *t)
{
	static const uint8_t index[] = {0x44, 0x0f, 0xb7, 0xd9}; /* movzwl %cx,%r11d */
	emit_store_gs(&t->e, JIT_GPR_R11, TB_SCRATCH_REG);
	if (t->count_in_lookup)
		emit_counters(t, JIT_GPR_R11);
	emit_bytes(&t->e, index, sizeof index);
	emit_bytes(&t->e, jump_through_r11, sizeof jump_through_r11);
	emit_u32(&t->e, TB_IBL_TABLE);
}

/* A jump through a constant table (table_jump.h), before the instruction that reads the
 * app's table: the index into %r11, the app's %r11 set aside (as the lookup's). */
static void emit_table_index(struct translation *t)
{
	emit_store_gs(&t->e, JIT_GPR_R11, TB_SCRATCH_REG);
	if (t->table_jump.index_reg != JIT_GPR_R11)
		emit_mov_reg_reg(&t->e, JIT_GPR_R11, t->table_jump.index_reg);
	t->borrowed_reg = JIT_GPR_R11 + 1;
}

/* The jump itself: through the thread block's table, to the target's entry past its check
 * and %rcx's return (translate_entry_table_hit). A kept translation names the table and its
 * number among its constant slots (persist.h). */
static void emit_table_jump(struct translation *t)
{
	if (t->count_in_lookup) { /* (through %rcx: %r11 holds the index) */
		emit_store_gs(&t->e, JIT_GPR_RCX, TB_SCRATCH_RCX);
		emit_counters(t, JIT_GPR_RCX);
		emit_load_gs(&t->e, JIT_GPR_RCX, TB_SCRATCH_RCX);
	}
	emit_bytes(&t->e, jump_through_r11, sizeof jump_through_r11);
	emit_u32(&t->e, t->table_jump.tb_offset);
	t->borrowed_reg = JIT_GPR_R11 + 1;
	note_constant_slot(t, t->table_jump.table, t->table_jump.dependency);
}

static const uint8_t add_d32_to_rcx[] = {0x48, 0x8d, 0x89}; /* lea d32(%rcx),%rcx */

/* %rcx += value (a pc, or its negation) without touching flags: a lea of %rcx and a 32-bit
 * displacement when near, else through %r11 (movabs, then lea). */
static void emit_rcx_plus(struct emitter *e, uint64_t value, bool near)
{
	static const uint8_t add_r11_to_rcx[] = {0x4a, 0x8d, 0x0c, 0x19}; /* lea (%rcx,%r11),%rcx */
	if (near) {
		emit_bytes(e, add_d32_to_rcx, sizeof add_d32_to_rcx);
		emit_u32(e, (uint32_t)value);
	} else {
		emit_movabs(e, JIT_GPR_R11, value);
		emit_bytes(e, add_r11_to_rcx, sizeof add_r11_to_rcx);
	}
}

/* A fragment's indirect entry: the lookup lands here with the app target in %rcx and the
 * app's %r11/%rcx in their slots. Compares the target with this fragment's app pc using
 * lea and jrcxz, so flags stay the app's: with the pc as lea's displacement when it fits
 * (a non-PIE executable's code, below 2 GiB), else through %r11 (translate_entry_pc reads
 * the pc back). On a mismatch, a linkable jump: to the lookup's miss, or to the entry of
 * another target of the same table slot (fragment_link_mismatch). Returns its rel32. */
static uint8_t *emit_indirect_entry(struct emitter *e, uint64_t app_pc)
{
	static const uint8_t count_hit[] = {0x4d, 0x8d, 0x5b, 0x01}; /* lea 1(%r11),%r11 */
	bool near = app_pc < (1ull << 31);
	emit_rcx_plus(e, 0 - app_pc, near);
	emit_u8(e, 0xe3); /* jrcxz over the mismatch path */
	uint8_t *over = e->cur;
	emit_u8(e, 0);
	emit_rcx_plus(e, app_pc, near);
	uint8_t *mismatch = emit_jmp_rel32(e, e->cur);
	if (!e->overflow)
		patch_rel32(mismatch, e->cur);
	emit_jmp_gs(e, TB_IBL_MISS);
	if (!e->overflow)
		*over = (uint8_t)(e->cur - (over + 1));
	if (jit_config.stats) {
		emit_load_gs(e, JIT_GPR_R11, TB_IBL_HITS);
		emit_bytes(e, count_hit, sizeof count_hit);
		emit_store_gs(e, JIT_GPR_R11, TB_IBL_HITS);
	}
	emit_load_gs(e, JIT_GPR_RCX, TB_SCRATCH_RCX);
	emit_load_gs(e, JIT_GPR_R11, TB_SCRATCH_REG); /* (last: translate_entry_table_hit) */
	return mismatch;
}

/* The entry starts with emit_rcx_plus(-pc): lea's displacement, or movabs's immediate. */
uint64_t translate_entry_pc(const uint8_t *entry)
{
	enum { MOVABS_IMM = 2 }; /* REX.W and the opcode before the immediate */
	int32_t near;
	uint64_t far;
	if (!memcmp(entry, add_d32_to_rcx, sizeof add_d32_to_rcx)) {
		memcpy(&near, entry + sizeof add_d32_to_rcx, sizeof near);
		return 0 - (uint64_t)(int64_t)near;
	}
	memcpy(&far, entry + MOVABS_IMM, sizeof far);
	return 0 - far;
}

/* The entry's last instruction before the fragment's own code, which brings the app's %r11
 * back (emit_indirect_entry): a jump through a constant table enters there, %rcx untouched. */
const uint8_t *translate_entry_table_hit(const uint8_t *entry)
{
	enum { NEAR_JRCXZ = 7, FAR_JRCXZ = 14, JRCXZ = 0xe3, LOOK_AHEAD = 64 };
	uint8_t rcx_back[16], r11_back[16];
	struct emitter rcx_code = {rcx_back, rcx_back, rcx_back + sizeof rcx_back, false};
	struct emitter r11_code = {r11_back, r11_back, r11_back + sizeof r11_back, false};
	emit_load_gs(&rcx_code, JIT_GPR_RCX, TB_SCRATCH_RCX);
	emit_load_gs(&r11_code, JIT_GPR_R11, TB_SCRATCH_REG);
	size_t rcx_len = (size_t)(rcx_code.cur - rcx_back),
	       r11_len = (size_t)(r11_code.cur - r11_back);
	size_t at = memcmp(entry, add_d32_to_rcx, sizeof add_d32_to_rcx) ? FAR_JRCXZ : NEAR_JRCXZ;
	if (entry[at] != JRCXZ)
		return NULL;
	const uint8_t *hit = entry + at + 2 + (int8_t)entry[at + 1];
	for (size_t off = 0; off + rcx_len + r11_len <= LOOK_AHEAD; off++)
		if (!memcmp(hit + off, rcx_back, rcx_len) &&
		    !memcmp(hit + off + rcx_len, r11_back, r11_len))
			return hit + off + rcx_len;
	return NULL;
}

/* Loads the target of an indirect call/jmp into %rcx, computed exactly as the original
 * instruction would (before any push of the return address). */
static void emit_load_indirect_target(struct translation *t, const struct block_insn *bi)
{
	struct emitter *e = &t->e;
	const ZydisDecodedOperand *op = &block_insn_ops(bi)[0];
	if (op->type == ZYDIS_OPERAND_TYPE_REGISTER) {
		int r = gpr_number(op->reg.value);
		if (r != JIT_GPR_RCX)
			emit_mov_reg_reg(e, JIT_GPR_RCX, r);
		return;
	}
	if (op->mem.segment == ZYDIS_REGISTER_FS)
		emit_u8(e, 0x64);
	if (op->mem.base == ZYDIS_REGISTER_RIP) {
		emit_movabs(e, JIT_GPR_RCX,
			    bi->pc + bi->insn.length + (uint64_t)bi->insn.raw.disp.value);
		static const uint8_t load[] = {0x48, 0x8b, 0x09}; /* mov (%rcx),%rcx */
		emit_bytes(e, load, sizeof load);
		return;
	}
	/* Same addressing bytes with the opcode turned into mov r/m64 -> %rcx. */
	for (unsigned i = 0; i < bi->insn.raw.prefix_count; i++)
		if (bi->insn.raw.prefixes[i].value == 0x67)
			emit_u8(e, 0x67);
	emit_u8(e, (uint8_t)(0x48 | (bi->insn.raw.rex.X << 1) | bi->insn.raw.rex.B));
	emit_u8(e, 0x8b);
	emit_u8(e, (uint8_t)((bi->insn.raw.modrm.mod << 6) | (JIT_GPR_RCX << 3) |
			     bi->insn.raw.modrm.rm));
	unsigned tail = bi->insn.raw.modrm.offset + 1u;
	emit_bytes(e, bi->bytes + tail, bi->insn.length - tail);
}

/* Pushes the app's return address of a call with one 8-byte store (push of a constant
 * read RIP-relative), so the matching return's load is forwarded from that store. */
static void emit_push_return_address(struct translation *t, uint64_t value)
{
	if (t->constant_count == MAX_COPIES * MAX_CONSTANTS) {
		t->failed = true;
		return;
	}
	static const uint8_t push_rip[] = {0xff, 0x35}; /* push d32(%rip) */
	emit_bytes(&t->e, push_rip, sizeof push_rip);
	t->constants[t->constant_count++] = (struct pending_constant){value, t->e.cur};
	emit_u32(&t->e, 0);
}

static void emit_indirect_branch(struct translation *t, const struct block_insn *bi, bool call)
{
	emit_store_gs(&t->e, JIT_GPR_RCX, TB_SCRATCH_RCX);
	emit_load_indirect_target(t, bi);
	if (call)
		emit_push_return_address(t, bi->pc + bi->insn.length);
	emit_indirect_lookup(t);
}

static void emit_return(struct translation *t, const struct block_insn *bi)
{
	static const uint8_t load[] = {0x48, 0x8b, 0x0c, 0x24}; /* mov (%rsp),%rcx */
	int32_t pop = 8;
	if (bi->insn.operand_count_visible > 0) { /* ret $imm16: no operand decoded otherwise */
		const ZydisDecodedOperand *imm = &block_insn_ops(bi)[0];
		if (imm->type == ZYDIS_OPERAND_TYPE_IMMEDIATE)
			pop += (int32_t)imm->imm.value.u;
	}
	emit_store_gs(&t->e, JIT_GPR_RCX, TB_SCRATCH_RCX);
	emit_bytes(&t->e, load, sizeof load);
	emit_lea_rsp(&t->e, pop);
	emit_indirect_lookup(t);
}

/* Patches a rel8 branch at `field` to land at the emitter's current position. */
static void land_rel8(struct emitter *e, uint8_t *field)
{
	if (!e->overflow)
		*field = (uint8_t)(e->cur - (field + 1));
}

/* jrcxz/loop*: rel8 only, so: <op> to the taken jump; jmp <fallthrough>; jmp <taken>. */
static void emit_rcx_branch(struct translation *t, const struct block_insn *bi)
{
	for (unsigned i = 0; i < bi->insn.raw.prefix_count; i++)
		if (bi->insn.raw.prefixes[i].value == 0x67)
			emit_u8(&t->e, 0x67);
	emit_u8(&t->e, bi->insn.opcode);
	uint8_t *taken = t->e.cur;
	emit_u8(&t->e, 0);
	emit_direct_jump(t, bi->pc + bi->insn.length);
	land_rel8(&t->e, taken); /* (jumps may be padded for alignment) */
	emit_direct_jump(t, branch_target(bi));
}

static int pick_scratch(const struct block_insn *bi)
{
	static const int candidates[] = {JIT_GPR_RAX, JIT_GPR_RCX, JIT_GPR_RDX, JIT_GPR_RBX,
					 JIT_GPR_RSI, JIT_GPR_RDI, JIT_GPR_R8,	JIT_GPR_R9,
					 JIT_GPR_R10, JIT_GPR_R11};
	unsigned used = 0;
	for (unsigned i = 0; i < bi->insn.operand_count; i++) {
		const ZydisDecodedOperand *op = &block_insn_ops(bi)[i];
		int r = op->type == ZYDIS_OPERAND_TYPE_REGISTER ? gpr_number(op->reg.value)
			: op->type == ZYDIS_OPERAND_TYPE_MEMORY ? gpr_number(op->mem.index)
								: -1;
		if (r >= 0)
			used |= 1u << r;
	}
	for (unsigned i = 0; i < sizeof candidates / sizeof candidates[0]; i++)
		if (!(used & (1u << candidates[i])))
			return candidates[i];
	return -1;
}

/* RIP-relative operand out of rel32 reach from the cache: materialise the address in a
 * borrowed register and re-encode the instruction to use it. */
static void emit_rip_relative_far(struct translation *t, const struct block_insn *bi,
				  uint64_t absolute)
{
	ZydisEncoderRequest req;
	int scratch = pick_scratch(bi);
	if (scratch < 0 ||
	    ZYAN_FAILED(ZydisEncoderDecodedInstructionToEncoderRequest(
		&bi->insn, block_insn_ops(bi), bi->insn.operand_count_visible, &req))) {
		jit_fatal("cannot relocate the RIP-relative instruction at 0x%lx", bi->pc);
	}
	for (unsigned i = 0; i < req.operand_count; i++) {
		if (req.operands[i].type == ZYDIS_OPERAND_TYPE_MEMORY &&
		    req.operands[i].mem.base == ZYDIS_REGISTER_RIP) {
			req.operands[i].mem.base = gpr_register(scratch);
			req.operands[i].mem.displacement = 0;
		}
	}
	req.prefixes &= ~(ZydisInstructionAttributes)ZYDIS_ATTRIB_HAS_BND;
	uint8_t encoded[ZYDIS_MAX_INSTRUCTION_LENGTH];
	ZyanUSize len = sizeof encoded;
	if (ZYAN_FAILED(ZydisEncoderEncodeInstruction(&req, encoded, &len)))
		jit_fatal("cannot re-encode the RIP-relative instruction at 0x%lx", bi->pc);
	t->borrowed_reg = (uint8_t)(scratch + 1);
	emit_store_gs(&t->e, scratch, TB_SCRATCH_REG);
	emit_movabs(&t->e, scratch, absolute);
	emit_bytes(&t->e, encoded, (unsigned)len);
	emit_load_gs(&t->e, scratch, TB_SCRATCH_REG);
}

static void emit_copy(struct translation *t, const struct block_insn *bi)
{
	const ZydisDecodedOperand *rip = rip_relative_operand(bi);
	if (!rip) {
		emit_bytes(&t->e, bi->bytes, bi->insn.length);
		return;
	}
	uint64_t absolute = bi->pc + bi->insn.length + (uint64_t)bi->insn.raw.disp.value;
	int64_t disp = (int64_t)(absolute - ((uint64_t)t->e.cur + bi->insn.length));
	if (disp != (int32_t)disp) {
		emit_rip_relative_far(t, bi, absolute);
		return;
	}
	uint8_t *at = t->e.cur;
	emit_bytes(&t->e, bi->bytes, bi->insn.length);
	if (!t->e.overflow) {
		int32_t d32 = (int32_t)disp;
		memcpy(at + bi->insn.raw.disp.offset, &d32, 4);
	}
}

/* A callout: leave through the dispatcher, which calls fn and resumes right here. The
 * first `budgets_done` budget checks of the block have counted it by then: the slots that
 * get the rest of the block back should the thread not run it (instrument_uncount). */
static struct jit_callout_exit *new_callout_exit(struct translation *t,
						 const struct block_callout *c, uint64_t pc,
						 uint32_t block_remaining, bool is_budget,
						 int budgets_done)
{
	struct jit_exit *rec = new_exit(t, EXIT_CALLOUT, pc);
	if (!rec)
		return NULL;
	t->block_calls_out |= !is_budget || !icount_is_countdown_slot(c->slot);
	rec->block_remaining = block_remaining;
	struct jit_callout_exit *call = jit_callout_exit_of(rec);
	call->callout = c->fn;
	call->callout_arg = c->arg;
	call->is_budget = is_budget;
	for (int i = 0; i < budgets_done; i++)
		call->budget_slots |= 1u << block.budgets[i].slot;
	made(t, rec,
	     !is_budget && !call->budget_slots && instrument_kept_callout_number(c->fn) >= 0);
	return call;
}

static struct jit_callout_exit *emit_callout(struct translation *t, const struct block_callout *c,
					     uint64_t pc, uint32_t block_remaining, bool is_budget,
					     int budgets_done)
{
	struct jit_callout_exit *call =
	    new_callout_exit(t, c, pc, block_remaining, is_budget, budgets_done);
	if (!call)
		return NULL;
	call->exit.stub = t->e.cur;
	emit_exit_stub(&t->e, &call->exit);
	call->resume = t->e.cur;
	return call;
}

/* sub $amount,%gs:slot; when negative, the callout at the block starting at pc
 * (`remaining`: the block's counted instructions; `budgets_done`: as emit_callout's), out
 * of line (emit_pending_checks). Flags are preserved when live. */
static struct jit_callout_exit *emit_slot_check(struct translation *t,
						const struct block_callout *c, uint64_t pc,
						uint32_t amount, uint32_t remaining,
						bool flags_live, bool is_budget, int budgets_done)
{
	struct emitter *e = &t->e;
	/* (the sub leaves %rax alone: the flags' image stays in it) */
	if (flags_live)
		emit_save_flags_in_rax(e);
	emit_sub_gs(e, slot_offset(c->slot), amount);
	uint8_t *fire = emit_jcc_rel32_local(e, 0x8 /* s */);
	if (flags_live)
		emit_restore_flags_from_rax(e);
	struct jit_callout_exit *call =
	    new_callout_exit(t, c, pc, remaining, is_budget, budgets_done);
	if (!call)
		return NULL;
	t->not_persistable = true; /* (a count's check: by the thread's state) */
	call->resume = e->cur;
	t->checks[t->check_count++] = (struct pending_check){fire, &call->exit, flags_live};
	return call;
}

static void emit_pending_checks(struct translation *t)
{
	for (int i = 0; i < t->check_count; i++) {
		const struct pending_check *pc = &t->checks[i];
		patch_branch(t, pc->field, t->e.cur);
		if (pc->restore_flags)
			emit_restore_flags_from_rax(&t->e);
		emit_exit_stub(&t->e, pc->rec);
	}
}

/* Iterations of a REP string instruction: add %rcx before it, subtract it after
 * (as ~rcx + 1, so that no flag changes); `down` counts the other way (budgets). */
static void emit_rep_counter(struct emitter *e, int slot, bool after, bool down)
{
	uint32_t off = slot_offset(slot);
	static const uint8_t add_rcx[] = {0x48, 0x8d, 0x04, 0x08}; /* lea (%rax,%rcx),%rax */
	static const uint8_t not_rcx[] = {0x48, 0xf7, 0xd1};	   /* not %rcx */
	static const uint8_t add_neg_rcx[] = {0x48, 0x8d, 0x44, 0x08, 0x01}; /* lea 1(%rax,%rcx) */
	emit_store_gs(e, JIT_GPR_RAX, TB_SCRATCH_RAX);
	emit_load_gs(e, JIT_GPR_RAX, off);
	if (after != down) {
		emit_bytes(e, not_rcx, sizeof not_rcx);
		emit_bytes(e, add_neg_rcx, sizeof add_neg_rcx);
		emit_bytes(e, not_rcx, sizeof not_rcx);
	} else {
		emit_bytes(e, add_rcx, sizeof add_rcx);
	}
	emit_store_gs(e, JIT_GPR_RAX, off);
	emit_load_gs(e, JIT_GPR_RAX, TB_SCRATCH_RAX);
}

static bool is_jcc(ZydisMnemonic m)
{
	switch (m) {
	case ZYDIS_MNEMONIC_JB:
	case ZYDIS_MNEMONIC_JBE:
	case ZYDIS_MNEMONIC_JL:
	case ZYDIS_MNEMONIC_JLE:
	case ZYDIS_MNEMONIC_JNB:
	case ZYDIS_MNEMONIC_JNBE:
	case ZYDIS_MNEMONIC_JNL:
	case ZYDIS_MNEMONIC_JNLE:
	case ZYDIS_MNEMONIC_JNO:
	case ZYDIS_MNEMONIC_JNP:
	case ZYDIS_MNEMONIC_JNS:
	case ZYDIS_MNEMONIC_JNZ:
	case ZYDIS_MNEMONIC_JO:
	case ZYDIS_MNEMONIC_JP:
	case ZYDIS_MNEMONIC_JS:
	case ZYDIS_MNEMONIC_JZ:
		return true;
	default:
		return false;
	}
}

static bool is_rcx_branch(ZydisMnemonic m)
{
	return m == ZYDIS_MNEMONIC_JRCXZ || m == ZYDIS_MNEMONIC_JECXZ || m == ZYDIS_MNEMONIC_LOOP ||
	       m == ZYDIS_MNEMONIC_LOOPE || m == ZYDIS_MNEMONIC_LOOPNE;
}

static bool is_far(const ZydisDecodedInstruction *insn)
{
	return insn->meta.branch_type == ZYDIS_BRANCH_TYPE_FAR;
}

/* The 32-bit system call gate, which Linux opens to 64-bit code too. */
static bool is_int80(const struct block_insn *bi)
{
	return bi->insn.mnemonic == ZYDIS_MNEMONIC_INT && block_insn_ops(bi)[0].imm.value.u == 0x80;
}

/* Instructions the runtime must see or cannot run from the cache (yet). */
static bool is_unsupported(const struct block_insn *bi)
{
	switch (bi->insn.mnemonic) {
	case ZYDIS_MNEMONIC_SYSENTER:
	case ZYDIS_MNEMONIC_SYSEXIT:
	case ZYDIS_MNEMONIC_IRET:
	case ZYDIS_MNEMONIC_IRETD:
	case ZYDIS_MNEMONIC_IRETQ:
		return true;
	default:
		return is_far(&bi->insn) || uses_gs(bi);
	}
}

bool translate_ends_block(const struct block_insn *bi)
{
	ZydisMnemonic m = bi->insn.mnemonic;
	return m == ZYDIS_MNEMONIC_JMP || m == ZYDIS_MNEMONIC_CALL || m == ZYDIS_MNEMONIC_RET ||
	       m == ZYDIS_MNEMONIC_SYSCALL || m == ZYDIS_MNEMONIC_XBEGIN || is_jcc(m) ||
	       is_rcx_branch(m) || is_int80(bi) || is_unsupported(bi);
}

static bool is_relative_branch(const struct block_insn *bi)
{
	const ZydisDecodedOperand *target = &block_insn_ops(bi)[0];
	return target->type == ZYDIS_OPERAND_TYPE_IMMEDIATE && target->imm.is_relative;
}

/* Whether the status flags are all written at app pc `target` before any is read, from a
 * few instructions there. The code made on that answer depends on those bytes: when they
 * were fetched with the chain they become part of the fragment's app range, so that
 * writing, unmapping or remapping them retires it as for its own code; else they are
 * judged where they lie and taken as constant slots (flags_ahead.h). */
static bool flags_dead_at(struct translation *t, uint64_t target)
{
	enum { LOOK_AHEAD = 4 };
	if (target < fetch_pc || target - fetch_pc >= fetch_length) {
		bool dead = flags_dead_ahead(target, &ahead_words);
		translate_stats.flags_dead_ahead += dead;
		return dead;
	}
	struct block_insn insns[LOOK_AHEAD];
	struct jit_block ahead = {.start_pc = target, .insns = insns};
	size_t off = target - fetch_pc;
	uint64_t end = target + translate_decode_run(fetch_buf + off, fetch_length - off, target,
						     &ahead, LOOK_AHEAD);
	if (block_flags_live_from(&ahead, 0))
		return false;
	if (end > t->looked_at_end)
		t->looked_at_end = end;
	return true;
}

/* Emits one instruction; returns true when it ended the block's control flow. */
static bool emit_insn(struct translation *t, const struct block_insn *bi)
{
	ZydisMnemonic m = bi->insn.mnemonic;
	uint64_t next = bi->pc + bi->insn.length;
	if (is_unsupported(bi)) {
		emit_inline_exit(t, EXIT_UNSUPPORTED, bi->pc);
		return true;
	}
	if (m == ZYDIS_MNEMONIC_SYSCALL || is_int80(bi)) {
		emit_inline_exit(t, m == ZYDIS_MNEMONIC_SYSCALL ? EXIT_SYSCALL : EXIT_INT80, next);
		return true;
	}
	size_t at = (size_t)(bi - block.insns);
	if (t->has_table_jump && at >= t->table_jump.load) {
		if (at == t->table_jump.load)
			emit_table_index(t);
		if (at == block.length - 1) {
			emit_table_jump(t);
			return true;
		}
		/* the app's load from its table (and the add of a table of offsets) */
		t->borrowed_reg = JIT_GPR_R11 + 1;
		emit_copy(t, bi);
		return false;
	}
	if (m == ZYDIS_MNEMONIC_XBEGIN) {
		/* A transaction may abort at any time: this one aborts at once, with no reason
		 * given in %eax, and the app runs its fallback path. A real xbegin first, for
		 * what this CPU does with it: begin (then xabort), abort at once (TSX turned
		 * off, whatever CPUID says), or refuse it (#UD: the app's SIGILL, here). */
		static const uint8_t begin_and_abort[] = {
		    0xc7, 0xf8, 3,    0, 0, 0, /* xbegin past the xabort */
		    0xc6, 0xf8, 0xff,	       /* xabort $0xff */
		};
		static const uint8_t eax_zero[] = {0xb8, 0, 0, 0, 0}; /* mov $0,%eax */
		emit_bytes(&t->e, begin_and_abort, sizeof begin_and_abort);
		emit_bytes(&t->e, eax_zero, sizeof eax_zero);
		emit_direct_jump(t, next + (uint64_t)block_insn_ops(bi)[0].imm.value.s);
		return true;
	}
	if (m == ZYDIS_MNEMONIC_RET) {
		emit_return(t, bi);
		return true;
	}
	if (m == ZYDIS_MNEMONIC_JMP || m == ZYDIS_MNEMONIC_CALL) {
		bool call = m == ZYDIS_MNEMONIC_CALL;
		uint64_t target = 0, slot;
		/* (a lookup that carries the block's count stays, whatever the slot says now) */
		if (!is_relative_branch(bi) &&
		    (t->count_in_lookup || !constant_slot_target(bi, &slot, &target))) {
			emit_indirect_branch(t, bi, call);
			return true;
		}
		if (!is_relative_branch(bi))
			note_constant_slot(t, slot, target);
		if (call)
			emit_push_return_address(t, next);
		emit_direct_jump(t, is_relative_branch(bi) ? branch_target(bi) : target);
		return true;
	}
	if (is_jcc(m)) {
		/* Into the next block where the branch goes: reversed, it leaves where the
		 * app's would fall through (condition codes pair by their lowest bit). */
		bool reverse = t->next_is_taken;
		uint8_t *taken = emit_jcc_rel32(&t->e, (bi->insn.opcode & 0xf) ^ reverse, t->e.cur);
		uint64_t target = reverse ? next : branch_target(bi);
		uint32_t rest = t->falls_into_next ? groups.rest_after[t->block_index] : 0;
		if (rest)
			t->uncounts[t->uncount_count++] =
			    (struct pending_uncount){taken, target, groups.slot[t->block_index],
						     rest, !flags_dead_at(t, target)};
		else
			route_branch(t, taken, target);
		if (!t->falls_into_next)
			emit_direct_jump(t, next);
		return true;
	}
	if (is_rcx_branch(m)) {
		emit_rcx_branch(t, bi);
		return true;
	}
	emit_copy(t, bi);
	return false;
}

/* The most instructions the next decoded fragment may hold (translate_block_limited). */
static size_t decode_limit = BLOCK_MAX_INSNS;

static struct jit_block *chain_block_at(size_t k, uint64_t pc, struct block_insn *insns)
{
	struct jit_block *b = &chain[k];
	*b = (struct jit_block){
	    .start_pc = pc,
	    .insns = insns,
	    .table_counter = {-1, -1, 0},
	    .trace = {.buffer_slot = -1, .skip_slot = -1},
	};
	return b;
}

static bool is_chain_target(const uint64_t *targets, size_t n, uint64_t pc)
{
	for (size_t i = 0; i < n; i++)
		if (targets[i] == pc)
			return true;
	return false;
}

/* Whether the fragment holding the code at `at` branches to pc: a sign (cheaper than
 * decoding) that the blocks from `at` on may come back to pc, closing a loop. */
static bool may_close_loop(uint64_t at, uint64_t pc)
{
	const struct fragment *f = fragment_lookup(at);
	if (f->inside)
		f = f->inside;
	for (uint32_t i = 0; i < f->exit_count; i++)
		if (f->exits[i]->target == pc && !f->exits[i]->falls_through)
			return true;
	return false;
}

/* Decodes the fragment at pc into `chain`: its first basic block, and (`chain_fall`) the
 * blocks its conditional branches fall through to, as long as they decode and have no
 * fragment of their own, or up to the first one that branches back to pc (a loop:
 * form_loop), kept even through blocks that have fragments; a block also ends where one
 * of the chain's branches lands further on. Returns the exit kind to emit instead when
 * not a single instruction could be decoded, or EXIT_DIRECT when the chain is usable. */
static enum exit_kind decode_chain(uint64_t pc, bool chain_fall)
{
	size_t avail = fetch_code(pc);
	fetch_pc = pc;
	fetch_length = avail;
	size_t off = 0, n = 0;
	chain_length = 1;
	struct jit_block *b = chain_block_at(0, pc, chain_insns);
	/* Where the chain's conditional branches jump forward to, inside what was fetched: a
	 * block starts there too, so that the branch can go there inside the fragment. */
	uint64_t targets[MAX_CHAIN];
	size_t target_count = 0;
	/* The first of the blocks that have fragments of their own, decoded to see whether
	 * they close a loop, and left to those fragments if not (0: none). */
	size_t probe_from = 0;
	while (n < decode_limit && off < avail) {
		if (chain_fall && b->length && is_chain_target(targets, target_count, pc + off)) {
			if (chain_length == MAX_CHAIN || (!probe_from && fragment_lookup(pc + off)))
				break;
			b = chain_block_at(chain_length++, pc + off, &chain_insns[n]);
		}
		struct block_insn *bi = &chain_insns[n];
		bool decoded = ZYAN_SUCCESS(ZydisDecoderDecodeInstruction(
		    &decoder, &bi->context, fetch_buf + off, avail - off, &bi->insn));
		bi->ops_decoded = false;
		if (!decoded) {
			if (n == 0)
				return !decoded && avail - off < ZYDIS_MAX_INSTRUCTION_LENGTH &&
					       avail < FETCH_MAX
					   ? EXIT_BAD_FETCH
					   : EXIT_BAD_OPCODE;
			break;
		}
		bi->pc = pc + off;
		bi->bytes = fetch_buf + off;
		bi->rep_counter_slot = -1;
		bi->rep_down_slot = -1;
		bi->rep_table_slot = -1;
		bi->memory_marks_slot = -1;
		bi->callout_count = 0;
		bi->trace_store_count = 0;
		bi->suppressed = false;
		b->length++;
		n++;
		translate_stats.insns_decoded++;
		off += bi->insn.length;
		/* A REP string instruction ends its block: a budget can then stop it at an
		 * exact iteration (emit_rep_in_parts), no instruction after it counted yet. */
		if (jit_insn_is_rep_string(&bi->insn))
			break;
		if (!translate_ends_block(bi))
			continue;
		if (!chain_fall || !is_jcc(bi->insn.mnemonic))
			break;
		uint64_t target = branch_target(bi);
		if (target == pc) { /* a loop's last block (form_loop) */
			probe_from = 0;
			break;
		}
		if (chain_length == MAX_CHAIN)
			break;
		if (!probe_from && fragment_lookup(pc + off)) {
			if (!may_close_loop(pc + off, pc))
				break;
			probe_from = chain_length;
		}
		if (target > pc + off && target < pc + avail && target_count < MAX_CHAIN)
			targets[target_count++] = target;
		b = chain_block_at(chain_length++, pc + off, &chain_insns[n]);
	}
	if (n == 0)
		return EXIT_BAD_FETCH;
	if (probe_from)
		chain_length = probe_from;
	else if (b->length == 0) /* a chained block that did not decode: translated alone */
		chain_length--;
	return EXIT_DIRECT;
}

/* Blocks 0..loop_body-1 of the chain are a loop's body, repeated to its end (form_loop);
 * 0: the chain is no loop. */
static size_t loop_body;

/* Whether the chain holds more than one copy of a loop's body. */
static bool loop_laid_out_again(void)
{
	return loop_body && chain_length > loop_body;
}

/* Whether a branch of a loop's body to target leaves the loop. */
static bool leaves_loop(uint64_t target)
{
	const struct jit_block *latch = &chain[loop_body - 1];
	const struct block_insn *last = &latch->insns[latch->length - 1];
	return target < chain[0].start_pc || target >= last->pc + last->insn.length;
}

/* Where block k's conditional branch goes when taken: into block k + 1 (the next copy of a
 * loop's body). */
static bool next_is_taken(size_t k)
{
	return loop_body && (k + 1) % loop_body == 0 && k + 1 < chain_length;
}

/* A chain whose last block branches back to its start is a loop (decode_chain ends a chain
 * there; the loop's exit goes to the blocks after it). Returns the loop body's blocks, 0
 * when the chain is no loop. Where the instruction count is kept in striped counters, a
 * tight loop's body (sort's hottest loop: two blocks of three instructions) runs at the
 * latency of its counters' load-add-store, one per block and pass: so a body of at most 8
 * instructions is laid out four times, one of at most 16 twice, each copy of its last
 * block falling into the next copy where its branch goes (the branch reversed, to the
 * loop's exit), and all the copies are one count group (their branches out of the loop
 * leave it: may_share_count). The same under the countdown, whose checks are such
 * load-subtract-stores (bzip2's replay 0.93x, gzip's 0.97x). Longer bodies, whose passes
 * take longer than the counters' latency, and loops that exit early gain nothing from it
 * (xz's match finder measured slower). */
static size_t form_loop(uint64_t pc)
{
	size_t body = chain_length;
	const struct jit_block *latch = &chain[body - 1];
	const struct block_insn *last = &latch->insns[latch->length - 1];
	if (!is_jcc(last->insn.mnemonic) || branch_target(last) != pc)
		return 0;
	size_t insns = (size_t)(latch->insns - chain_insns) + latch->length;
	bool counted = icount_is_striped() || icount_is_countdown();
	size_t copies = !counted ? 1 : insns <= 8 ? 4 : insns <= 16 ? 2 : 1;
	while (copies > 1 && (body * copies > MAX_CHAIN || insns * copies > decode_limit))
		copies--;
	for (size_t c = 1; c < copies; c++) {
		for (size_t k = 0; k < body; k++) {
			const struct jit_block *from = &chain[k];
			struct block_insn *to = from->insns + c * insns;
			memcpy(to, from->insns, sizeof *to * from->length);
			chain_block_at(c * body + k, from->start_pc, to)->length = from->length;
		}
	}
	chain_length = body * copies;
	return body;
}

/* Around a REP string instruction: its iterations count up in its counter and down in
 * the block's budgets, which measure the same instructions. */
static void emit_rep_counters(struct translation *t, const struct block_insn *bi, bool after)
{
	if (bi->rep_table_slot >= 0)
		emit_rep_table_counter(&t->e, bi->rep_table_slot, bi->rep_table_index, after);
	if (!jit_insn_is_rep_string(&bi->insn))
		return;
	if (bi->rep_counter_slot >= 0)
		emit_rep_counter(&t->e, bi->rep_counter_slot, after, false);
	if (bi->rep_down_slot >= 0)
		emit_rep_counter(&t->e, bi->rep_down_slot, after, true);
	for (int i = 0; i < block.budget_count; i++)
		emit_rep_counter(&t->e, block.budgets[i].slot, after, true);
}

/* An instruction on %rcx and the thread block's word at off: the opcode, then ModRM and
 * SIB for an absolute disp32 (in %gs). */
static void emit_rcx_gs(struct emitter *e, const uint8_t *opcode, unsigned n, uint32_t off)
{
	static const uint8_t gs_rex_w[] = {0x65, 0x48};
	static const uint8_t modrm_sib[] = {0x0c, 0x25};
	emit_bytes(e, gs_rex_w, sizeof gs_rex_w);
	emit_bytes(e, opcode, n);
	emit_bytes(e, modrm_sib, sizeof modrm_sib);
	emit_u32(e, off);
}

/* Before a REP string instruction whose block checks budgets (the block's last: see
 * decode): whether each budget lets all %rcx iterations run. */
struct rep_check {
	uint8_t *to_parts[BLOCK_MAX_BUDGETS];
	bool flags_live;
};

static void emit_rep_check(struct translation *t, bool flags_live, struct rep_check *rc)
{
	static const uint8_t cmp_slot_rcx[] = {0x39}; /* cmp %rcx,slot */
	rc->flags_live = flags_live;
	if (flags_live)
		emit_save_flags_in_rax(&t->e);
	for (int i = 0; i < block.budget_count; i++) {
		emit_rcx_gs(&t->e, cmp_slot_rcx, sizeof cmp_slot_rcx,
			    slot_offset(block.budgets[i].slot));
		rc->to_parts[i] = emit_jcc_rel32_local(&t->e, 0xc /* l */);
	}
	if (flags_live)
		emit_restore_flags_from_rax(&t->e);
}

/* One part of a REP string instruction: the app's %rcx is the part's plus TB_SCRATCH_REP. */
static void emit_rep_part(struct translation *t, const struct block_insn *bi)
{
	t->insns[t->insn_count++] = (struct insn_map){
	    .cache_off = (uint16_t)(t->e.cur - t->e.start),
	    .app_off = (uint16_t)(bi->pc - t->app_pc),
	    .counted_from = INSN_COUNT_UNKNOWN,
	    .rcx_rest = true,
	};
	emit_insn(t, bi);
}

/* Out of line, where a budget ends among the iterations: the instruction runs as many as
 * every budget lets (the least of them), or, where one is spent, a single iteration
 * checked as a block of one instruction (its callouts see the thread at the instruction,
 * %rcx whole); then, unless the instruction ended (%rcx left, or REPE/REPNE's condition),
 * on to the instruction again with the rest, through an exit. So an instruction-count
 * event falls at an exact iteration, as it would between two blocks. */
static void emit_rep_in_parts(struct translation *t, const struct block_insn *bi,
			      const struct rep_check *rc, bool traced)
{
	static const uint8_t cmp_rcx_slot[] = {0x3b};		    /* cmp slot,%rcx */
	static const uint8_t cmovg_slot[] = {0x0f, 0x4f};	    /* cmovg slot,%rcx */
	static const uint8_t sub_rcx_from[] = {0x29};		    /* sub %rcx,slot */
	static const uint8_t test_rcx[] = {0x48, 0x85, 0xc9};	    /* test %rcx,%rcx */
	static const uint8_t one_less[] = {0x48, 0x8d, 0x49, 0xff}; /* lea -1(%rcx),%rcx */
	static const uint8_t just_one[] = {0xb9, 1, 0, 0, 0};	    /* mov $1,%ecx */
	static const uint8_t jrcxz_over_jmp[] = {0xe3, 5};
	static const uint8_t add_rax[] = {0x48, 0x8d, 0x0c, 0x01}; /* lea (%rcx,%rax),%rcx */
	struct emitter *e = &t->e;
	uint8_t *to_end = emit_jmp_rel32_local(e);
	for (int i = 0; i < block.budget_count; i++)
		patch_branch(t, rc->to_parts[i], e->cur);
	/* (the flags, when live, are in %rax, the app's %rax in TB_SCRATCH_RAX) */
	emit_bytes(e, test_rcx, sizeof test_rcx);
	uint8_t *to_none = emit_jcc_rel32_local(e, 0x4 /* z: a spent budget, no iteration */);
	emit_store_gs(e, JIT_GPR_RCX, TB_SCRATCH_REP);
	emit_load_gs(e, JIT_GPR_RCX, slot_offset(block.budgets[0].slot));
	for (int i = 1; i < block.budget_count; i++) {
		uint32_t off = slot_offset(block.budgets[i].slot);
		emit_rcx_gs(e, cmp_rcx_slot, sizeof cmp_rcx_slot, off);
		emit_rcx_gs(e, cmovg_slot, sizeof cmovg_slot, off);
	}
	emit_bytes(e, test_rcx, sizeof test_rcx);
	uint8_t *to_one = emit_jcc_rel32_local(e, 0xe /* le */);
	emit_rcx_gs(e, sub_rcx_from, sizeof sub_rcx_from, TB_SCRATCH_REP);
	if (rc->flags_live)
		emit_restore_flags_from_rax(e);
	emit_rep_counters(t, bi, false);
	emit_rep_part(t, bi);
	emit_rep_counters(t, bi, true);
	uint8_t *to_part_end = emit_jmp_rel32_local(e);

	patch_branch(t, to_one, e->cur);
	if (rc->flags_live)
		emit_restore_flags_from_rax(e);
	/* The count first, as a block's, so that the callouts see the iteration counted (and
	 * a thread they send elsewhere gets it back: instrument_uncount); a table's after
	 * them, as the iteration runs. */
	emit_bytes(e, just_one, sizeof just_one);
	if (bi->rep_counter_slot >= 0)
		emit_rep_counter(e, bi->rep_counter_slot, false, false);
	if (bi->rep_down_slot >= 0)
		emit_rep_counter(e, bi->rep_down_slot, false, true);
	emit_load_gs(e, JIT_GPR_RCX, TB_SCRATCH_REP);
	for (int i = 0; i < block.budget_count; i++) {
		struct jit_callout_exit *call =
		    emit_slot_check(t, &block.budgets[i], bi->pc, 1, 1, true, true, i + 1);
		if (call)
			call->one_iteration = true;
	}
	emit_bytes(e, one_less, sizeof one_less);
	emit_store_gs(e, JIT_GPR_RCX, TB_SCRATCH_REP);
	emit_bytes(e, just_one, sizeof just_one);
	if (bi->rep_table_slot >= 0)
		emit_rep_table_counter(e, bi->rep_table_slot, bi->rep_table_index, false);
	emit_rep_part(t, bi);

	/* The part's end: the app's flags as the instruction left them, untouched here. */
	patch_branch(t, to_part_end, e->cur);
	emit_bytes(e, jrcxz_over_jmp, sizeof jrcxz_over_jmp);
	uint8_t *to_ended_early = emit_jmp_rel32_local(e);
	uint8_t *to_ended = NULL;
	if (bi->insn.attributes & ZYDIS_ATTRIB_HAS_REPE)
		to_ended = emit_jcc_rel32_local(e, 0x5 /* nz */);
	else if (bi->insn.attributes & ZYDIS_ATTRIB_HAS_REPNE)
		to_ended = emit_jcc_rel32_local(e, 0x4 /* z */);
	/* (an exit: a thread asked to leave at its block's end does so after the part,
	 * the block's trace record closed with the registers the part left) */
	emit_load_gs(e, JIT_GPR_RCX, TB_SCRATCH_REP);
	if (bi->trace_store_count && traced)
		emit_trace_stores(e, bi, &block.trace, true, true);
	emit_direct_jump(t, bi->pc);
	uint8_t *to_end_after_rest = NULL;
	if (to_ended) {
		patch_branch(t, to_ended, e->cur);
		emit_load_gs(e, JIT_GPR_RCX, TB_SCRATCH_REP);
		to_end_after_rest = emit_jmp_rel32_local(e);
	}
	patch_branch(t, to_none, e->cur);
	if (rc->flags_live)
		emit_restore_flags_from_rax(e);
	uint8_t *to_end_from_none = emit_jmp_rel32_local(e);
	patch_branch(t, to_ended_early, e->cur);
	emit_store_gs(e, JIT_GPR_RAX, TB_SCRATCH_RAX);
	emit_load_gs(e, JIT_GPR_RAX, TB_SCRATCH_REP);
	emit_bytes(e, add_rax, sizeof add_rax);
	emit_load_gs(e, JIT_GPR_RAX, TB_SCRATCH_RAX);
	patch_branch(t, to_end, e->cur);
	patch_branch(t, to_end_from_none, e->cur);
	if (to_end_after_rest)
		patch_branch(t, to_end_after_rest, e->cur);
}

/* Whether held marks may stay held across bi: a plain copy of an instruction that stays
 * in the block, with nothing inserted that leaves the cache or uses the registers. */
static bool may_hold_across(const struct block_insn *bi)
{
	return !translate_ends_block(bi) && !bi->callout_count && !bi->trace_store_count &&
	       !bi->suppressed && bi->rep_table_slot < 0 && !jit_insn_is_rep_string(&bi->insn);
}

static bool has_memory_marks(const struct jit_block *b)
{
	for (size_t i = 0; i < b->length; i++)
		if (b->insns[i].memory_marks_slot >= 0)
			return true;
	return false;
}

/* Whether bi is an indirect branch, translated into the lookup. */
static bool goes_through_lookup(const struct block_insn *bi)
{
	ZydisMnemonic m = bi->insn.mnemonic;
	uint64_t slot, target;
	return !is_unsupported(bi) &&
	       (m == ZYDIS_MNEMONIC_RET ||
		((m == ZYDIS_MNEMONIC_JMP || m == ZYDIS_MNEMONIC_CALL) && !is_relative_branch(bi) &&
		 !constant_slot_target(bi, &slot, &target)));
}

/* Whether a fault before the block's counter update can make it (signals.c): when that
 * update is the striped instruction count's alone, and a map entry holds its amount. */
static bool pending_count_fixable(void)
{
	return block.counter_count == 1 && icount_stripe_counter(&block) == 0 &&
	       block.counters[0].amount <= UINT8_MAX;
}

/* One copy of the block's code; `traced`: with its trace record (else only the record's
 * room check, a copy for jit_insert_trace_skip). */
static void emit_copy_of_block(struct translation *t, bool traced)
{
	bool keep_flags =
	    (block.counter_count || block.budget_count) && block_flags_live_from(&block, 0);
	struct count_place place = {0, -1, false, false};
	bool placed = keep_flags && block.counter_count &&
		      count_place_find(&block, pending_count_fixable(),
				       goes_through_lookup(&block.insns[block.length - 1]), &place);
	if (!placed)
		emit_counters(t, keep_flags ? EMIT_KEEP_FLAGS : -1);
	if (block.table_counter.table_slot >= 0)
		emit_table_counter(&t->e, &block.table_counter, block_flags_live_from(&block, 0));
	/* counted instructions from i to the end of the block's count group */
	uint32_t counted = groups.rest_after[t->block_index];
	for (size_t i = 0; i < block.length; i++)
		counted += instrument_counted(&block, i);
	traced = traced && block.trace.buffer_slot >= 0;
	if (block.trace.buffer_slot >= 0) {
		/* Before the budget checks: a thread their callouts send elsewhere has begun
		 * the record, and its clients hear of it (block_left). */
		if (traced)
			emit_trace_header(&t->e, &block.trace);
		emit_slot_check(t, &block.trace.full, block.start_pc, block.trace.bytes, counted,
				block_flags_live_from(&block, 0), false, 0);
	}
	for (int i = 0; i < block.budget_count; i++)
		emit_slot_check(t, &block.budgets[i], block.start_pc, counted, counted, keep_flags,
				true, i + 1);
	bool ended = false;
	struct held_marks held;
	bool can_hold = has_memory_marks(&block) && held_marks_choose(&block, &held);
	t->has_table_jump = !has_memory_marks(&block) && table_jump_find(&block, &t->table_jump);
	bool holding = false;
	int held_slot = -1;
	for (size_t i = 0; i < block.length && !ended; i++) {
		const struct block_insn *bi = &block.insns[i];
		if (placed && i == place.before && !place.in_lookup)
			emit_counters(t, place.reg);
		t->count_in_lookup = placed && i == place.before && place.in_lookup;
		if (holding && !may_hold_across(bi)) {
			emit_held_marks_end(&t->e, &held);
			holding = false;
		}
		/* Before the callouts, which may run the instruction in its place (a replay's
		 * injected results): the record holds the state before it. */
		if (bi->trace_store_count && traced)
			emit_trace_stores(&t->e, bi, &block.trace, false,
					  block_flags_live_from(&block, i));
		for (int c = 0; c < bi->callout_count; c++) {
			struct jit_callout_exit *call = emit_callout(
			    t, &bi->callouts[c], bi->pc, counted, false, block.budget_count);
			if (call && bi->suppressed)
				call->skip_to = bi->pc + bi->insn.length;
		}
		counted -= instrument_counted(&block, i);
		if (bi->memory_marks_slot >= 0 && memory_marks_wanted(bi)) {
			if (!holding && can_hold && may_hold_across(bi)) {
				held_slot = bi->memory_marks_slot;
				emit_held_marks_begin(&t->e, &held, held_slot);
				holding = true;
			}
			/* (the held map is the slot's of the run's first marks) */
			if (!holding || bi->memory_marks_slot != held_slot ||
			    !emit_held_memory_marks(&t->e, &held, bi))
				emit_memory_marks(&t->e, bi, bi->memory_marks_slot,
						  block_flags_live_from(&block, i));
		}
		struct rep_check rep_check = {0};
		bool in_parts =
		    jit_insn_is_rep_string(&bi->insn) && block.budget_count && !bi->suppressed;
		if (in_parts)
			emit_rep_check(t, block_flags_live_from(&block, i), &rep_check);
		emit_rep_counters(t, bi, false);
		t->insns[t->insn_count++] = (struct insn_map){
		    .cache_off = (uint16_t)(t->e.cur - t->e.start),
		    .app_off = (uint16_t)(bi->pc - t->app_pc),
		    .rewritten = bi->insn.mnemonic == ZYDIS_MNEMONIC_RET ||
				 ((bi->insn.mnemonic == ZYDIS_MNEMONIC_CALL ||
				   bi->insn.mnemonic == ZYDIS_MNEMONIC_JMP) &&
				  !is_relative_branch(bi)),
		    .counted_from =
			instrument_counted(&block, i) ? (uint8_t)(counted + 1) : INSN_COUNT_UNKNOWN,
		    .group_rest = (uint8_t)groups.rest_after[t->block_index],
		    .held_regs = holding ? held.regs : 0,
		    .count_pending =
			placed && place.after_faults && i < place.before + place.in_lookup
			    ? (uint8_t)block.counters[0].amount
			    : 0,
		};
		t->borrowed_reg = 0;
		if (!bi->suppressed)
			ended = emit_insn(t, bi);
		t->insns[t->insn_count - 1].borrowed_reg = t->borrowed_reg;
		emit_rep_counters(t, bi, true);
		if (in_parts)
			emit_rep_in_parts(t, bi, &rep_check, traced);
		if (!ended && bi->trace_store_count && traced)
			emit_trace_stores(&t->e, bi, &block.trace, true,
					  block_flags_live_from(&block, i + 1));
	}
	if (holding)
		emit_held_marks_end(&t->e, &held);
	if (!ended && !t->falls_into_next) {
		const struct block_insn *last = &block.insns[block.length - 1];
		emit_direct_jump(t, last->pc + last->insn.length);
	}
}

/* Whether a block gets a second copy, without its trace record (jit_insert_trace_skip). */
static bool has_skip_copy(const struct jit_block *b)
{
	return b->trace.buffer_slot >= 0 && b->trace.skip_slot >= 0;
}

/* The current `block`, in one or two copies. */
static void emit_basic_block(struct translation *t)
{
	bool skippable = has_skip_copy(&block);
	bool flags_live = skippable && block_flags_live_from(&block, 0);
	uint8_t *to_skip_copy =
	    skippable ? emit_trace_skip_switch(&t->e, &block.trace, flags_live) : NULL;
	emit_copy_of_block(t, true);
	if (skippable) {
		patch_branch(t, to_skip_copy, t->e.cur);
		emit_trace_skip_entry(&t->e, flags_live);
		emit_copy_of_block(t, false);
	}
}

/* Where a chained block falls through into the next one: an exit all the same, which is
 * linked while the site falls through, so that unlinking the fragment (a signal, a safe
 * point, stopping the world, a retirement) has a thread leave the cache at its block's end
 * as it would between two fragments. */
static void emit_chained_block_end(struct translation *t, uint64_t next_pc)
{
	struct jit_exit *rec = new_exit(t, EXIT_DIRECT, next_pc);
	if (!rec || t->exit_count == MAX_FRAGMENT_EXITS) {
		t->failed = true;
		return;
	}
	rec->falls_through = true;
	rec->owner = t->fragment;
	rec->block_remaining = groups.rest_after[t->block_index];
	uint8_t *site = emit_fall_through_site(&t->e);
	t->exits[t->exit_count++] = (struct pending_exit){rec, site, NULL};
}

/* Whether the thread may have to leave the cache where the block falls through into the
 * next one: when a callout of the block asks for it (a region's transition at the end of
 * the event's block, seed 000; a signal that came meanwhile: not the countdown's, in every
 * block of a replay, whose signals the replay delivers itself and which stops the thread
 * exactly by jit_callout_limit_block), when a safe point is wanted
 * now (the thread stops at its block's end), or when the app may write the chain's code
 * (a block that writes the next one retires the translation, and must run the new code).
 * Elsewhere a thread made to leave (a signal, a stopped world, a retirement) does so at
 * the chain's next exit, also a block's end; a site there would cost every run of the
 * block a NOP (and its padding). */
static bool needs_fall_through_site(const struct translation *t)
{
	return t->block_calls_out || !threads_may_link() || t->code_may_change;
}

/* The app bytes of the chain, from its lowest block to the end of its highest. */
static bool chain_code_may_change(void)
{
	uint64_t low = UINT64_MAX, high = 0;
	for (size_t k = 0; k < chain_length; k++) {
		const struct block_insn *last = &chain[k].insns[chain[k].length - 1];
		if (chain[k].start_pc < low)
			low = chain[k].start_pc;
		if (last->pc + last->insn.length > high)
			high = last->pc + last->insn.length;
	}
	return code_pages_may_change(low, high);
}

/* The taken paths of the branches out of the middle of count groups. */
static void emit_group_uncounts(struct translation *t)
{
	for (int i = 0; i < t->uncount_count; i++) {
		const struct pending_uncount *u = &t->uncounts[i];
		patch_branch(t, u->field, t->e.cur);
		/* (the countdown's budget gets back what it was taken) */
		int64_t back = icount_is_countdown() ? u->rest : -(int64_t)u->rest;
		if (u->flags_live)
			emit_add_gs_keep_flags(&t->e, slot_offset(u->slot), back);
		else
			emit_add_gs(&t->e, slot_offset(u->slot), back);
		emit_direct_jump(t, u->target);
	}
}

/* Whether chain block k (k > 0) is entered where it is: a branch to it then goes into the
 * chain rather than into a translation of its own that would repeat the rest of the chain
 * (most of what chains cost to translate). Not a block inside a count group: entered there,
 * the group's count would first need the rest of it added (or checked) and a jump back in,
 * on every entry; a translation of its own starts a group of its own instead: 8% more
 * fragments for the python loop, 18% fewer bytes of code (no entry code for a block inside
 * a group), its -icount, recording and replay 0.97-0.98x, sqlite's 0.95-0.97x; replays of
 * regions that end by count 1.00-1.01x. But where a client retires translations by their
 * pcs (flush_by_pcs_seen), every copy of a chain holding such a pc would go at each arming
 * (4 times the blocks retranslated for a syscall alarm with `repeat`). */
static bool enterable(size_t k)
{
	return !groups.inside[k] || flush_by_pcs_seen();
}

/* Where chain block k is entered from elsewhere: directly (first adding what its count
 * group counts from it on, when its group began before it; under the countdown, checking
 * it), and through its indirect entry, which goes the same way. */
static void emit_chain_entry(struct translation *t, size_t k)
{
	t->block_direct_entry[k] = t->block_code[k];
	if (groups.inside[k]) {
		t->block_direct_entry[k] = t->e.cur;
		uint32_t off = slot_offset(groups.slot[k]),
			 amount = groups.own[k] + groups.rest_after[k];
		bool flags_live = block_flags_live_from(&chain[k], 0);
		if (icount_is_countdown())
			emit_slot_check(t, &groups.check[k], chain[k].start_pc, amount, amount,
					flags_live, true, 0);
		else if (flags_live)
			emit_add_gs_keep_flags(&t->e, off, amount);
		else
			emit_add_gs(&t->e, off, amount);
		patch_branch(t, emit_jmp_rel32_local(&t->e), t->block_code[k]);
	}
	t->block_entry[k] = t->e.cur;
	t->block_mismatch[k] = emit_indirect_entry(&t->e, chain[k].start_pc);
	patch_branch(t, emit_jmp_rel32_local(&t->e), t->block_direct_entry[k]);
}

/* The chain's blocks one after the other, each falling through into the next, then the
 * code off their paths: checks' callouts, exit stubs, constants. */
static bool emit_fragment(struct translation *t)
{
	t->code_may_change = chain_length > 1 && chain_code_may_change();
	for (size_t k = 0; k < chain_length; k++) {
		block = chain[k];
		t->block_index = k;
		t->block_code[k] = t->e.cur;
		t->falls_into_next = k + 1 < chain_length;
		t->next_is_taken = next_is_taken(k);
		t->block_calls_out = false;
		emit_basic_block(t);
		if (t->falls_into_next && needs_fall_through_site(t))
			emit_chained_block_end(t, chain[k + 1].start_pc);
	}
	emit_group_uncounts(t);
	for (size_t k = 1; k < chain_length; k++)
		if (enterable(k))
			emit_chain_entry(t, k);
	emit_pending_checks(t);
	for (int i = 0; i < t->exit_count; i++) {
		uint8_t *stub = t->e.cur;
		struct pending_exit *x = &t->exits[i];
		x->rec->branch_field = x->field;
		x->rec->stub = stub;
		emit_exit_stub(&t->e, x->rec);
		if (t->e.overflow)
			continue;
		if (x->rec->falls_through) {
			x->rec->linked = threads_may_link();
			if (!x->rec->linked)
				patch_fall_through(x->field, stub);
			continue;
		}
		patch_rel32(x->field, x->link_to ? x->link_to->cache_pc : stub);
		x->rec->linked = x->link_to != NULL;
	}
	while ((uint64_t)t->e.cur & 7)
		emit_u8(&t->e, 0xcc);
	for (int i = 0; i < t->constant_count; i++) {
		uint8_t *at = t->e.cur;
		emit_u64(&t->e, t->constants[i].value);
		patch_branch(t, t->constants[i].field, at);
	}
	return !t->failed && !t->e.overflow;
}

/* f->rep, when its last instruction is a REP string instruction that counts. Only the
 * plain count's slot is kept with a translation (persist.h): one that counts otherwise is
 * made anew in each process. False when out of memory. */
static bool note_rep_counts(struct translation *t, struct fragment *f,
			    const struct block_insn *last)
{
	const struct jit_block *tail = &chain[chain_length - 1];
	if (!jit_insn_is_rep_string(&last->insn) || last->suppressed)
		return true;
	struct rep_counts rc = {(int8_t)last->rep_counter_slot, (int8_t)last->rep_down_slot,
				(int8_t)last->rep_table_slot, last->rep_table_index, 0};
	for (int i = 0; i < tail->budget_count; i++)
		rc.budgets |= 1u << tail->budgets[i].slot;
	if (rc.up < 0 && rc.down < 0 && rc.table < 0 && !rc.budgets)
		return true;
	if (rc.down >= 0 || rc.table >= 0 || rc.budgets)
		t->not_persistable = true;
	struct rep_counts *kept = fragment_meta_alloc(sizeof *kept);
	if (!kept)
		return false;
	*kept = rc;
	f->rep = kept;
	return true;
}

static size_t chain_room(void)
{
	size_t room = 0;
	for (size_t k = 0; k < chain_length; k++) {
		const struct jit_block *b = &chain[k];
		bool parts =
		    b->budget_count && jit_insn_is_rep_string(&b->insns[b->length - 1].insn);
		room += (has_skip_copy(b) ? 2 : 1) *
			    (CACHE_PER_BLOCK + CACHE_PER_INSN * (b->length + 1) +
			     (parts ? CACHE_REP_IN_PARTS : 0)) +
			CACHE_PER_GROUP_BLOCK;
		for (size_t i = 0; i < b->length; i++)
			room += trace_stores_room(&b->insns[i]);
	}
	return room;
}

/* Registers the chain's enterable blocks, but those that have a fragment already. */
static void enter_chain_blocks(const struct translation *t, const struct fragment *f)
{
	for (size_t k = 1; k < chain_length; k++) {
		uint64_t pc = chain[k].start_pc;
		if (!enterable(k) || fragment_lookup(pc))
			continue;
		struct fragment *entry = fragment_meta_alloc(sizeof *entry);
		if (!entry)
			return;
		*entry = (struct fragment){
		    .app_pc = pc,
		    .app_end = f->app_end,
		    .indirect_entry = t->block_entry[k],
		    .mismatch_field = t->block_mismatch[k],
		    .cache_pc = t->block_direct_entry[k],
		    .inside = f,
		};
		if (!fragment_insert(entry))
			return;
	}
}

/* Hands the new translation to persist.h. */
static void keep(const struct translation *t, struct fragment *f)
{
	struct persist_entry entries[MAX_CHAIN];
	size_t n = 0;
	for (size_t k = 1; k < chain_length; k++)
		if (enterable(k))
			entries[n++] =
			    (struct persist_entry){chain[k].start_pc, t->block_entry[k],
						   t->block_mismatch[k], t->block_direct_entry[k]};
	persist_note(&(struct persist_translation){
	    .f = f,
	    .exits = t->made,
	    .exit_count = (size_t)t->made_count,
	    .entries = entries,
	    .entry_count = n,
	    .slots = t->slots,
	    .slot_count = (size_t)t->slot_count,
	    .app_bytes = fetch_buf,
	});
}

/* Translates `chain` (decoded at app_pc). NULL when out of room, or (*stale) when the app's
 * code changed since it was fetched. */
static struct fragment *try_translate(uint64_t app_pc, enum exit_kind start, bool registered,
				      bool *stale)
{
	size_t room = chain_room();
	uint8_t *code = code_cache_reserve(app_pc, room);
	struct fragment *f = fragment_meta_alloc(sizeof *f);
	if (!code || !f)
		return NULL;
	struct translation t = {.e = {code, code, code + room}, .fragment = f, .app_pc = app_pc};
	uint8_t *mismatch = emit_indirect_entry(&t.e, app_pc);
	uint8_t *body = t.e.cur;
	if (start != EXIT_DIRECT)
		emit_inline_exit(&t, start, app_pc);
	else if (!emit_fragment(&t))
		return NULL;
	for (int i = 0; i < ahead_words.count; i++) {
		const struct persist_slot *w = &ahead_words.word[i];
		fragment_depends_on(w->slot, w->slot + sizeof w->value);
		note_constant_slot(&t, w->slot | PERSIST_SLOT_WORD, w->value);
	}
	if (t.failed || t.e.overflow)
		return NULL;
	const struct jit_block *tail = &chain[chain_length - 1];
	const struct block_insn *last =
	    start == EXIT_DIRECT ? &tail->insns[tail->length - 1] : NULL;
	size_t ninsns = start == EXIT_DIRECT ? (size_t)t.insn_count : 0;
	struct jit_exit **exits = fragment_meta_alloc(sizeof *exits * (size_t)(t.exit_count + 1));
	struct insn_map *insns = fragment_meta_alloc(sizeof *insns * (ninsns + 1));
	if (!exits || !insns)
		return NULL;
	uint64_t app_end = last ? last->pc + last->insn.length : app_pc + 1;
	if (t.looked_at_end > app_end)
		app_end = t.looked_at_end;
	for (int i = 0; i < t.exit_count; i++)
		exits[i] = t.exits[i].rec;
	memcpy(insns, t.insns, sizeof *insns * ninsns);
	*f = (struct fragment){
	    .app_pc = app_pc,
	    .app_end = app_end,
	    .indirect_entry = code,
	    .mismatch_field = mismatch,
	    .cache_pc = body,
	    .cache_size = (uint32_t)(t.e.cur - code),
	    .exits = exits,
	    .exit_count = (uint32_t)t.exit_count,
	    .insn_count = (uint32_t)ninsns,
	    .insns = insns,
	};
	if (start == EXIT_DIRECT && !note_rep_counts(&t, f, last))
		return NULL;
	code_cache_commit(code, f->cache_size);
	fragment_index(f);
	perf_map_translated(f);
	code_pages_translated(f->app_pc, f->app_end);
	/* Another thread may have written the code between its fetch and its page's write
	 * protection just now: such a write faulted on nothing, and the translation would run
	 * the old code for ever. Written later, it faults and retires this one. */
	if (start == EXIT_DIRECT &&
	    !app_bytes_equal(f->app_pc, fetch_buf, f->app_end - f->app_pc)) {
		*stale = true;
		return NULL;
	}
	if (!registered || !fragment_insert(f))
		return registered ? NULL : f;
	enter_chain_blocks(&t, f);
	if (start == EXIT_DIRECT && !t.not_persistable && !t.code_may_change && persist_wanted())
		keep(&t, f);
	return f;
}

/* Whether chain block k (k > 0) may share the count of the block before it: it follows
 * that block through no branch, or through a branch not taken that jumps far ahead or
 * very far back. Compilers lay out the unlikely side of a branch (error paths, rare cases)
 * out of line, away from the code that falls through (a profile-guided build in a section
 * of its own before the hot code: 94% of the python loop's branches more than 64 KiB back
 * fall through); a branch over a few instructions nearby (an `if`
 * without `else`) is taken about as often as not, and taking a branch out of a group costs
 * more than the count the group saves (docs/performance.md). */
static bool may_share_count(size_t k)
{
	const struct jit_block *before = &chain[k - 1];
	const struct block_insn *last = &before->insns[before->length - 1];
	if (!translate_ends_block(last))
		return true;
	if (!is_jcc(last->insn.mnemonic))
		return false;
	uint64_t target = branch_target(last);
	if (loop_laid_out_again() && (next_is_taken(k - 1) || leaves_loop(target)))
		return true; /* a tight loop's way out (form_loop) */
	/* Under the countdown, a block where the flags are live would check keeping them (eight
	 * instructions): it rather joins, whatever its branch (a region replay: python 0.96x,
	 * sqlite 0.99x; the striped count places such updates where the flags are dead,
	 * count_place.h, and gains nothing from it). */
	if (icount_is_countdown() && block_flags_live_from(&chain[k], 0))
		return true;
	return target > last->pc + FAR_BRANCH || target + FAR_BACK_BRANCH < last->pc;
}

/* Where a chain block ends in a jump or call that says where it goes and leaves the flags
 * to whatever runs there, whether that code writes them before it reads them (what is
 * inserted at the block's start need not keep them: flags_ahead.h). Before the clients,
 * which may ask (a replay compares the flags where a region ends only where they are live:
 * where they are not, the code inserted there may have changed them). */
static void judge_block_ends(void)
{
	for (size_t k = 0; k < chain_length; k++) {
		struct jit_block *b = &chain[k];
		const struct block_insn *last = &b->insns[b->length - 1];
		ZydisMnemonic m = last->insn.mnemonic;
		uint32_t written = 0;
		b->flags_dead_after = (m == ZYDIS_MNEMONIC_JMP || m == ZYDIS_MNEMONIC_CALL) &&
				      block_flags_use(b, 0, &written) == FLAGS_UNDECIDED &&
				      flags_dead_after_branch(last, &ahead_words);
		translate_stats.flags_dead_ahead += b->flags_dead_after;
	}
}

static bool has_callouts(const struct jit_block *b)
{
	for (size_t i = 0; i < b->length; i++)
		if (b->insns[i].callout_count)
			return true;
	return false;
}

/* Hands the chain's blocks to the clients in order; a block with two copies ends the chain
 * (its copies would have to meet again for the next block). Then forms the count groups. */
static void instrument_chain(void)
{
	for (size_t k = 0; k < chain_length; k++) {
		instrument_block(&chain[k]);
		cpuid_table_instrument(&chain[k]);
		if (has_skip_copy(&chain[k]))
			chain_length = k + 1;
	}
	bool may_join[MAX_CHAIN] = {false};
	/* (under the countdown, a block joins none whose end has a fall-through site:
	 * count_groups.h; see needs_fall_through_site) */
	bool sites = icount_is_countdown() &&
		     (!threads_may_link() || (chain_length > 1 && chain_code_may_change()));
	for (size_t k = 1; k < chain_length; k++)
		may_join[k] = may_share_count(k) &&
			      !(icount_is_countdown() && (sites || has_callouts(&chain[k - 1])));
	count_groups_form(chain, chain_length, may_join, &groups);
}

static struct fragment *translate(uint64_t app_pc, bool registered)
{
	for (;;) {
		/* One-off translations end where their block does. */
		bool chain_fall = registered && decode_limit == BLOCK_MAX_INSNS;
		enum exit_kind start = decode_chain(app_pc, chain_fall);
		loop_body = start == EXIT_DIRECT && chain_fall ? form_loop(app_pc) : 0;
		ahead_words.count = 0;
		if (start == EXIT_DIRECT) {
			if (instrument_blocks_wanted())
				judge_block_ends();
			instrument_chain();
		}
		translate_stats.blocks++;
		bool stale = false;
		struct fragment *f = try_translate(app_pc, start, registered, &stale);
		if (!f && !stale) {
			jit_reset_cache();
			f = try_translate(app_pc, start, registered, &stale);
		}
		if (!stale)
			return f;
	}
}

struct fragment *translate_block(uint64_t app_pc)
{
	forked_code_note(app_pc);
	struct fragment *kept = persist_find(app_pc);
	return kept ? kept : translate(app_pc, true);
}

struct fragment *translate_block_ahead(uint64_t app_pc)
{
	return page_readable(app_pc / PAGE) ? translate_block(app_pc) : NULL;
}

struct fragment *translate_block_excluding(uint64_t app_pc, void *const *exclude, uint32_t n)
{
	instrument_exclude_first(exclude, n);
	struct fragment *f = translate(app_pc, false);
	instrument_exclude_first(NULL, 0);
	return f;
}

struct fragment *translate_block_limited(uint64_t app_pc, uint32_t max_insns)
{
	decode_limit = max_insns < BLOCK_MAX_INSNS ? max_insns : BLOCK_MAX_INSNS;
	struct fragment *f = translate(app_pc, false);
	decode_limit = BLOCK_MAX_INSNS;
	return f;
}

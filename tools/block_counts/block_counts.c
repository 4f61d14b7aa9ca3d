#include "block_counts.h"

#include <string.h>
#include <sys/mman.h>

#include "insn_facts.h"
#include "instrument.h"
#include "rt_alloc.h"
#include "rt_format.h"
#include "rt_mutex.h"
#include "rt_sort.h"
#include "rt_syscall.h"

/* Record 0 is "no block": a thread that has not run a block yet has index 0 in its slot. */
enum {
	MAX_RECORDS = BLOCK_COUNTS_MAX_RECORDS,
	FIRST_HASH_BITS = 12,
	MAX_THREADS = 4096,
	INSN_CHUNK = 1 << 16,
};

struct correction {
	uint32_t record;
	uint32_t first;
	int64_t times;
};

struct thread_state {
	uint64_t *table; /* NULL until the thread first enters a region */
	bool inside;
	struct correction *corrections;
	size_t ncorrections, capacity;
};

static struct {
	int table_slot, index_slot;
	uint64_t *discard; /* where threads outside their regions count */
	struct counted_block *records;
	uint64_t *checksums; /* of each record's bytes: identical code finds its record again */
	/* record index + 1 per slot, 0 = empty; grown to stay at most half full, so that a
	 * short process touches a few pages of it (each new record probes a random slot) */
	uint32_t *hash;
	unsigned hash_bits;
	uint32_t nrecords;
	struct counted_insn *pool; /* instructions of the records, in chunks */
	size_t pool_used;
	struct thread_state threads[MAX_THREADS];
	uint32_t threads_dropped;
	uint64_t blocks_dropped;
	rt_mutex lock; /* corrections and table allocation */
} bc;

static void *reserve(size_t bytes)
{
	long r = rt_mmap(NULL, bytes, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	return rt_is_error(r) ? NULL : (void *)r;
}

static uint64_t checksum(const struct jit_block *b, size_t from, size_t to)
{
	uint64_t h = 0xcbf29ce484222325ull;
	for (size_t i = from; i < to; i++) {
		const uint8_t *p = jit_block_bytes(b, i);
		for (size_t k = 0; k < jit_block_insn(b, i)->length; k++)
			h = (h ^ p[k]) * 0x100000001b3ull;
	}
	return h;
}

static struct counted_insn *pool_take(size_t n)
{
	if (!bc.pool || bc.pool_used + n > INSN_CHUNK) {
		bc.pool = rt_calloc(INSN_CHUNK, sizeof *bc.pool);
		bc.pool_used = 0;
		if (!bc.pool)
			return NULL;
	}
	struct counted_insn *p = bc.pool + bc.pool_used;
	bc.pool_used += n;
	return p;
}

static uint8_t rep_kind(const ZydisDecodedInstruction *insn)
{
	if (!jit_insn_is_rep_string(insn))
		return 0;
	if (insn->attributes & ZYDIS_ATTRIB_HAS_REPE)
		return 2;
	if (insn->attributes & ZYDIS_ATTRIB_HAS_REPNE)
		return 3;
	return 1;
}

static uint32_t hash_slot(uint64_t pc, uint64_t sum)
{
	return (uint32_t)((pc * 0x9e3779b97f4a7c15ull ^ sum) >> (64 - bc.hash_bits));
}

/* The slot where the record of (pc, bytes, sum) is, or the empty one where it would go. */
static uint32_t hash_find(uint64_t pc, uint32_t bytes, uint64_t sum)
{
	uint32_t mask = (1u << bc.hash_bits) - 1;
	for (uint32_t h = hash_slot(pc, sum);; h = (h + 1) & mask) {
		uint32_t r = bc.hash[h];
		if (!r)
			return h;
		const struct counted_block *rb = &bc.records[r - 1];
		if (rb->pc == pc && rb->bytes == bytes && bc.checksums[r - 1] == sum)
			return h;
	}
}

/* Room for one more record at most half full: false when there is no memory for it. */
static bool hash_room(void)
{
	if (bc.hash && 2u * bc.nrecords < 1u << bc.hash_bits)
		return true;
	unsigned bits = bc.hash ? bc.hash_bits + 1 : FIRST_HASH_BITS;
	uint32_t *bigger = rt_calloc((size_t)1 << bits, sizeof *bigger);
	if (!bigger)
		return false;
	uint32_t *old = bc.hash;
	bc.hash = bigger;
	bc.hash_bits = bits;
	for (uint32_t r = 1; r < bc.nrecords; r++)
		bc.hash[hash_find(bc.records[r].pc, bc.records[r].bytes, bc.checksums[r])] = r + 1;
	rt_free(old);
	return true;
}

/* The record of instructions [from, to) of the block, found or made; 0 when full, or when
 * none is counted (a block of a REP string instruction alone, which its own record, of the
 * same bytes, counts by iterations). */
static uint32_t record_of(const struct jit_block *b, size_t from, size_t to, bool whole)
{
	size_t n = 0;
	for (size_t i = from; i < to; i++)
		n += whole || !jit_insn_is_rep_string(jit_block_insn(b, i));
	if (!n)
		return 0;
	uint64_t pc = jit_block_pc(b, from);
	uint64_t sum = checksum(b, from, to);
	uint32_t bytes =
	    (uint32_t)(jit_block_pc(b, to - 1) + jit_block_insn(b, to - 1)->length - pc);
	if (!hash_room()) {
		bc.blocks_dropped++;
		return 0;
	}
	uint32_t h = hash_find(pc, bytes, sum);
	if (bc.hash[h])
		return bc.hash[h] - 1;
	struct counted_insn *insns = pool_take(n);
	if (bc.nrecords >= MAX_RECORDS || !insns) {
		bc.blocks_dropped++;
		return 0;
	}
	size_t k = 0;
	for (size_t i = from; i < to; i++) {
		const ZydisDecodedInstruction *insn = jit_block_insn(b, i);
		if (!whole && jit_insn_is_rep_string(insn))
			continue;
		uint8_t reads = 0, writes = 0;
		const ZydisDecodedOperand *ops = jit_block_operands(b, i);
		for (unsigned o = 0; o < insn->operand_count; o++) {
			if (!insn_memop_traced(insn, &ops[o]))
				continue;
			reads += (ops[o].actions & ZYDIS_OPERAND_ACTION_MASK_READ) != 0;
			writes += (ops[o].actions & ZYDIS_OPERAND_ACTION_MASK_WRITE) != 0;
		}
		insns[k++] = (struct counted_insn){
		    .mnemonic = (uint16_t)insn->mnemonic,
		    .category = (uint8_t)insn->meta.category,
		    .isa_ext = (uint8_t)insn->meta.isa_ext,
		    .rep = rep_kind(insn),
		    .length = insn->length,
		    .offset = (uint16_t)(jit_block_pc(b, i) - pc),
		    .mem_reads = reads,
		    .mem_writes = writes,
		};
	}
	uint32_t r = bc.nrecords++;
	bc.records[r] = (struct counted_block){pc, bytes, (uint32_t)n, insns};
	bc.checksums[r] = sum;
	bc.hash[h] = r + 1;
	return r;
}

/* Translation is serialised by the runtime: the records need no lock. */
static void instrument(struct jit_block *b, void *arg)
{
	(void)arg;
	size_t len = jit_block_length(b);
	uint32_t whole = record_of(b, 0, len, false);
	if (whole)
		jit_insert_table_counter(b, bc.table_slot, whole, bc.index_slot);
	for (size_t i = 0; i < len; i++) {
		if (!jit_insn_is_rep_string(jit_block_insn(b, i)))
			continue;
		uint32_t rep = record_of(b, i, i + 1, true);
		if (rep)
			jit_insert_rep_table_counter(b, i, bc.table_slot, rep);
	}
}

static uint64_t *current_table(uint32_t tid)
{
	const struct thread_state *s = &bc.threads[tid];
	return s->inside && s->table ? s->table : bc.discard;
}

static void thread_start(struct jit_thread *t, uint64_t pc, void *arg)
{
	(void)pc;
	(void)arg;
	uint32_t tid = jit_thread_id(t);
	if (tid >= MAX_THREADS)
		__atomic_fetch_add(&bc.threads_dropped, 1, __ATOMIC_RELAXED);
	jit_thread_slot_set(t, bc.table_slot,
			    (uint64_t)(tid < MAX_THREADS ? current_table(tid) : bc.discard));
}

static void add_correction(struct thread_state *s, uint32_t record, uint32_t first, int64_t times)
{
	if (s->ncorrections == s->capacity) {
		size_t cap = s->capacity ? 2 * s->capacity : 16;
		struct correction *c = rt_realloc(s->corrections, cap * sizeof *c);
		if (!c)
			return;
		s->corrections = c;
		s->capacity = cap;
	}
	s->corrections[s->ncorrections++] = (struct correction){record, first, times};
}

/* The thread is at pc inside the block it counted at the block's start, into the table
 * of the state it had then: `times` corrects its regions' counts for the rest of that
 * block. */
static void correct_rest(struct thread_state *s, const struct jit_thread *t, uint64_t pc,
			 int64_t times)
{
	uint32_t r = (uint32_t)jit_thread_slot_get(t, bc.index_slot);
	if (!r || r >= bc.nrecords)
		return;
	const struct counted_block *b = &bc.records[r];
	if (pc < b->pc || pc >= b->pc + b->bytes)
		return;
	uint32_t first = 0;
	while (first < b->ninsns && b->pc + b->insns[first].offset < pc)
		first++;
	if (first < b->ninsns)
		add_correction(s, r, first, times);
}

static void apply(struct jit_thread *t, uint32_t tid, bool start,
		  const struct control_event_info *exact)
{
	if (tid >= MAX_THREADS)
		return;
	struct thread_state *s = &bc.threads[tid];
	if (s->inside == start)
		return;
	if (start && !s->table && !(s->table = reserve(MAX_RECORDS * sizeof(uint64_t)))) {
		__atomic_fetch_add(&bc.threads_dropped, 1, __ATOMIC_RELAXED);
		return;
	}
	s->inside = start;
	if (exact) /* the rest of the block belongs to the new state */
		correct_rest(s, exact->thread, exact->pc, start ? 1 : -1);
	jit_thread_slot_set(t, bc.table_slot, (uint64_t)current_table(tid));
}

void block_counts_event(const struct control_event_info *ev)
{
	if (ev->event != CONTROL_EVENT_START && ev->event != CONTROL_EVENT_STOP)
		return;
	bool start = ev->event == CONTROL_EVENT_START;
	rt_mutex_lock(&bc.lock);
	if (!ev->bcast) {
		apply(ev->thread, ev->tid, start, ev);
	} else {
		for (size_t i = 0; i < jit_thread_count(); i++) {
			struct jit_thread *t = jit_thread_at(i);
			apply(t, jit_thread_id(t), start, t == ev->thread ? ev : NULL);
		}
	}
	rt_mutex_unlock(&bc.lock);
}

static int by_record(const void *a, const void *b)
{
	uint32_t x = ((const struct correction *)a)->record;
	uint32_t y = ((const struct correction *)b)->record;
	return x < y ? -1 : x > y;
}

/* Runs of instructions of record r with the same net count: the table's count plus the
 * corrections `c` (those of r). */
static void visit_record(uint32_t r, uint64_t counted, const struct correction *c, size_t n,
			 block_counts_visitor fn, void *arg)
{
	const struct counted_block *b = &bc.records[r];
	int64_t net[JIT_MAX_BLOCK_LENGTH];
	uint32_t len = b->ninsns < JIT_MAX_BLOCK_LENGTH ? b->ninsns : JIT_MAX_BLOCK_LENGTH;
	for (uint32_t i = 0; i < len; i++)
		net[i] = (int64_t)counted;
	for (size_t k = 0; k < n; k++)
		for (uint32_t i = c[k].first; i < len; i++)
			net[i] += c[k].times;
	for (uint32_t first = 0, end; first < len; first = end) {
		for (end = first + 1; end < len && net[end] == net[first]; end++)
			;
		if (net[first] > 0)
			fn(b, first, end, (uint64_t)net[first], arg);
	}
}

void block_counts_for_thread(uint32_t tid, block_counts_visitor fn, void *arg)
{
	if (tid >= MAX_THREADS || !bc.threads[tid].table)
		return;
	struct thread_state *s = &bc.threads[tid];
	rt_mutex_lock(&bc.lock);
	rt_sort(s->corrections, s->ncorrections, sizeof *s->corrections, by_record);
	size_t k = 0;
	for (uint32_t r = 1; r < bc.nrecords; r++) {
		size_t from = k;
		while (k < s->ncorrections && s->corrections[k].record == r)
			k++;
		if (s->table[r] || k > from)
			visit_record(r, s->table[r], s->corrections + from, k - from, fn, arg);
	}
	rt_mutex_unlock(&bc.lock);
}

uint32_t block_counts_record_index(const struct counted_block *b)
{
	return (uint32_t)(b - bc.records);
}

bool block_counts_inside(uint32_t tid)
{
	return tid < MAX_THREADS && bc.threads[tid].inside && bc.threads[tid].table;
}

uint32_t block_counts_threads_dropped(void)
{
	return bc.threads_dropped;
}

uint64_t block_counts_blocks_dropped(void)
{
	return bc.blocks_dropped;
}

/* The rest of the block will run in a fresh translation, which counts it again. */
static void block_left(struct jit_thread *t, uint64_t pc, void *arg)
{
	(void)arg;
	uint32_t tid = jit_thread_id(t);
	if (!block_counts_inside(tid))
		return;
	rt_mutex_lock(&bc.lock);
	correct_rest(&bc.threads[tid], t, pc, -1);
	rt_mutex_unlock(&bc.lock);
}

static const struct jit_client client = {
    .name = "block counts",
    .instrument_block = instrument,
    .thread_start = thread_start,
    .block_left = block_left,
};

int block_counts_register(char *err, size_t errlen)
{
	if (bc.records)
		return 0; /* shared by the tools: once is enough */
	bc.table_slot = jit_thread_slot_reserve();
	bc.index_slot = jit_thread_slot_reserve();
	bc.discard = reserve(MAX_RECORDS * sizeof(uint64_t));
	bc.records = reserve(MAX_RECORDS * sizeof *bc.records);
	bc.checksums = reserve(MAX_RECORDS * sizeof *bc.checksums);
	if (bc.table_slot < 0 || bc.index_slot < 0) {
		rt_format(err, errlen, "no per-thread counter left for the analysis tools");
		return -1;
	}
	if (!bc.discard || !bc.records || !bc.checksums) {
		rt_format(err, errlen, "cannot reserve memory for the analysis tools");
		return -1;
	}
	bc.nrecords = 1;
	jit_register_client(&client);
	return 0;
}

/* Turning records back into executed instructions (helper thread). */
#include <string.h>

#include "capture_internal.h"
#include "jit_messages.h"
#include "rt_alloc.h"

/* A thread's last block: whether it ran whole is known only from the next word. */
struct kept {
	struct capture_block *blk;
	uint64_t record[CAPTURE_MARGIN / 8];
};

static struct kept *kept[CAPTURE_MAX_THREADS];

static uint64_t value_at(const uint64_t *record, uint32_t offset)
{
	uint64_t v;
	memcpy(&v, (const uint8_t *)record + offset, sizeof v);
	return v;
}

static bool rcx_branch_taken(uint16_t mnemonic, uint64_t rcx, bool zf)
{
	switch (mnemonic) {
	case ZYDIS_MNEMONIC_JRCXZ:
		return rcx == 0;
	case ZYDIS_MNEMONIC_JECXZ:
		return (uint32_t)rcx == 0;
	case ZYDIS_MNEMONIC_LOOP:
		return rcx != 1;
	case ZYDIS_MNEMONIC_LOOPE:
		return rcx != 1 && zf;
	default: /* LOOPNE */
		return rcx != 1 && !zf;
	}
}

/* One event per iteration, each memory operand advancing by its register's step. */
static void emit_rep(struct capture_exec *x, const uint64_t *record,
		     const struct capture_sink *sink)
{
	const struct capture_insn *in = x->insn;
	uint64_t rcx = value_at(record, in->data), rsi = value_at(record, in->data + 8),
		 rdi = value_at(record, in->data + 16);
	uint64_t rcx_after = value_at(record, in->data + 24);
	if (rcx_after > rcx)
		return;
	uint64_t n = rcx - rcx_after;
	int64_t si_step = n ? (int64_t)(value_at(record, in->data + 32) - rsi) / (int64_t)n : 0;
	int64_t di_step = n ? (int64_t)(value_at(record, in->data + 40) - rdi) / (int64_t)n : 0;
	for (uint64_t k = 0; k < n; k++) {
		for (uint8_t m = 0; m < in->facts.nmem; m++) {
			bool si = in->facts.mem[m].base == ZYDIS_REGISTER_RSI;
			x->address[m] =
			    si ? rsi + (uint64_t)si_step * k : rdi + (uint64_t)di_step * k;
		}
		sink->exec(x, sink->arg);
	}
}

/* The instructions of a record whose pc is below `end` (UINT64_MAX: all of them). */
static void emit_block(uint32_t tid, struct capture_block *blk, const uint64_t *record,
		       uint64_t end, const struct capture_sink *sink)
{
	struct capture_exec x = {.tid = tid};
	for (uint32_t i = 0; i < blk->ninsns && blk->insns[i].pc < end; i++) {
		struct capture_insn *in = &blk->insns[i];
		const struct insn_facts *f = &in->facts;
		x.insn = in;
		x.gpr = in->gprs ? (const uint64_t *)((const uint8_t *)record + in->gprs) : NULL;
		if (f->rep) {
			x.taken = false;
			emit_rep(&x, record, sink);
			continue;
		}
		/* A fixed-size copy (entries past nmem are the next values, unused): cheaper
		 * than a loop the compiler turns into a string move. The kept record has room
		 * past the largest block's values. */
		memcpy(x.address, (const uint8_t *)record + in->data, sizeof x.address);
		uint32_t extra = in->data + 8u * f->nmem;
		switch (f->branch) {
		case INSN_NOT_BRANCH:
			x.taken = false;
			break;
		case INSN_CONDITIONAL:
			x.taken = value_at(record, extra) & 1;
			break;
		case INSN_RCX_BRANCH:
			x.taken = rcx_branch_taken(in->mnemonic, value_at(record, extra),
						   value_at(record, extra + 8) & 1);
			break;
		default:
			x.taken = true;
			break;
		}
		sink->exec(&x, sink->arg);
	}
}

static void flush_kept(uint32_t tid, uint64_t end, const struct capture_sink *sink)
{
	struct kept *k = kept[tid];
	if (k && k->blk) {
		emit_block(tid, k->blk, k->record, end, sink);
		k->blk = NULL;
	}
}

void capture_decode(const struct handoff_buffer *b, const struct capture_sink *sink)
{
	uint32_t tid = b->tid;
	if (tid >= CAPTURE_MAX_THREADS)
		return;
	if (!kept[tid] && !(kept[tid] = rt_calloc(1, sizeof *kept[tid])))
		jit_fatal("trace: out of memory");
	const uint8_t *p = (const uint8_t *)b->words, *end = p + b->used;
	while (p + 8 <= end) {
		uint64_t word;
		memcpy(&word, p, sizeof word);
		if (word & CAPTURE_LEFT_MARK) {
			flush_kept(tid, word & ~CAPTURE_LEFT_MARK, sink);
			p += 8;
			continue;
		}
		flush_kept(tid, UINT64_MAX, sink);
		struct capture_block *blk = capture_block_of(word);
		if (!blk || p + blk->bytes > end)
			jit_fatal("trace: thread %u's trace buffer is corrupt at +%lu", tid,
				  (unsigned long)(p - (const uint8_t *)b->words));
		kept[tid]->blk = blk;
		memcpy(kept[tid]->record, p, blk->bytes);
		p += blk->bytes;
	}
}

void capture_decode_end(const struct capture_sink *sink)
{
	for (uint32_t tid = 0; tid < CAPTURE_MAX_THREADS; tid++)
		flush_kept(tid, UINT64_MAX, sink);
}

/* The JIT client of the capture (app threads, TLS-free): lays out each block's record at
 * translation and fills the per-thread buffers inline (jit_insert_trace_*). */
#include <string.h>

#include "capture_internal.h"
#include "instrument.h"
#include "jit_messages.h"
#include "rt_alloc.h"
#include "trace_buffers.h"

static struct {
	struct trace_buffers buffers;
	bool gprs; /* capture every instruction's registers */
} cc;

struct capture_block *capture_block_of(uint64_t word)
{
	return trace_buffers_layout(&cc.buffers, word);
}

/* A REP string instruction keeps rcx, rsi and rdi before and after it (its iterations and
 * their addresses follow); jrcxz and the loops keep rcx and ZF; a jcc its condition. */
static uint16_t lay_out(struct jit_block *b, size_t i, const struct capture_insn *ci, uint16_t off)
{
	const struct insn_facts *f = &ci->facts;
	if (f->rep) {
		static const int regs[3] = {JIT_GPR_RCX, JIT_GPR_RSI, JIT_GPR_RDI};
		for (int k = 0; k < 3; k++) {
			jit_insert_trace_gpr(b, i, regs[k], false, off + 8u * (uint32_t)k);
			jit_insert_trace_gpr(b, i, regs[k], true, off + 24u + 8u * (uint32_t)k);
		}
		return (uint16_t)(off + 48);
	}
	for (uint8_t k = 0; k < f->nmem; k++, off += 8)
		jit_insert_trace_address(b, i, f->mem[k].operand, off);
	if (f->branch == INSN_CONDITIONAL) {
		jit_insert_trace_condition(b, i, jit_block_insn(b, i)->opcode & 0xf, off);
		off += 8;
	} else if (f->branch == INSN_RCX_BRANCH) {
		jit_insert_trace_gpr(b, i, JIT_GPR_RCX, false, off);
		jit_insert_trace_condition(b, i, 4 /* Z */, off + 8u);
		off += 16;
	}
	return off;
}

static void full(const struct jit_callout *c);

/* Translation is serialised by the runtime: the block table needs no lock. */
static void instrument(struct jit_block *b, void *arg)
{
	(void)arg;
	size_t n = jit_block_length(b);
	/* (zeroed: each instruction's sink data is made when the helper first sees it) */
	struct capture_block *blk = rt_calloc(1, sizeof *blk + n * sizeof blk->insns[0]);
	if (!blk)
		jit_fatal("trace: out of memory for block layouts");
	uint16_t off = 8; /* after the block's word */
	for (size_t i = 0; i < n; i++) {
		const ZydisDecodedInstruction *insn = jit_block_insn(b, i);
		struct capture_insn *ci = &blk->insns[i];
		ci->pc = jit_block_pc(b, i);
		ci->length = insn->length;
		ci->mnemonic = (uint16_t)insn->mnemonic;
		memcpy(ci->bytes, jit_block_bytes(b, i), insn->length);
		insn_facts_of(insn, jit_block_operands(b, i), &ci->facts);
		ci->gprs = 0;
		if (cc.gprs) {
			ci->gprs = off;
			for (int r = 0; r < 16; r++)
				jit_insert_trace_gpr(b, i, r, false, off + 8u * (uint32_t)r);
			off = (uint16_t)(off + 128);
		}
		ci->data = off;
		off = lay_out(b, i, ci, off);
	}
	blk->bytes = off;
	blk->ninsns = (uint32_t)n;
	trace_buffers_add_block(&cc.buffers, b, blk, off, full);
}

static void thread_start(struct jit_thread *t, uint64_t pc, void *arg)
{
	(void)pc;
	(void)arg;
	trace_buffers_thread_start(&cc.buffers, t);
}

/* The thread's room ran out at a block's start. */
static void full(const struct jit_callout *c)
{
	trace_buffers_full(&cc.buffers, c->thread, (uint32_t)(uintptr_t)c->arg, NULL, 0);
}

static void block_left(struct jit_thread *t, uint64_t pc, void *arg)
{
	(void)arg;
	trace_buffers_append(&cc.buffers, t, CAPTURE_LEFT_MARK | pc);
}

/* Every thread's last buffer to the helper, then wait until it wrote everything. */
static void at_exit(int status, void *arg)
{
	(void)status;
	(void)arg;
	trace_buffers_finish(&cc.buffers);
}

static const struct jit_client client = {
    .name = "capture",
    .instrument_block = instrument,
    .thread_start = thread_start,
    .block_left = block_left,
    .at_exit = at_exit,
};

int capture_client_register(struct handoff *h, bool gprs, char *err, size_t errlen)
{
	cc.gprs = gprs;
	if (trace_buffers_init(&cc.buffers, h, "trace", CAPTURE_MARGIN, err, errlen))
		return -1;
	jit_register_client(&client);
	return 0;
}

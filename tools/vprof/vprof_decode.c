/* Turning records back into entries for the plug-in (helper thread). A thread's last record
 * is kept until the next word says whether its block ran whole and where a region began or
 * ended in it; the thread's calls and returns, seen at block ends, give its call sites. */
#include <stdlib.h>
#include <string.h>

#include "jit_messages.h"
#include "trace_buffers.h"
#include "vprof_internal.h"

enum { MAX_DEPTH = 1024 };

struct frame {
	uint64_t call_pc, return_to;
};

struct dthread {
	bool inside; /* in a region, after every mark seen so far */
	struct vp_block *kept;
	const uint8_t *record; /* the kept record: in the buffer being decoded, or in `copy` */
	/* The kept record's region state: bit 0 whether it began inside a region, the bits
	 * above how many region changes came inside its block (one word, stored and loaded
	 * whole at every record). */
	uint32_t kept_state;
	struct {
		uint64_t pc;
		bool inside;
	} toggles[VP_MAX_MARKS];
	/* The calls seen and not returned from, the latest at `top` (a ring: the oldest go
	 * when it is full). */
	struct frame frames[MAX_DEPTH];
	unsigned top, depth;
	bool returning; /* the last block ended in a return: the next one pops frames */
	uint8_t copy[VP_MARGIN];
};

static struct dthread *threads[TRACE_BUFFERS_MAX_THREADS];
static struct vprof_entry batch[VP_BATCH];
static struct vp_origin batch_from[VP_BATCH];
static size_t nbatch;

static uint64_t value_at(const uint8_t *record, uint32_t offset)
{
	uint64_t v;
	memcpy(&v, record + offset, sizeof v);
	return v;
}

static uint64_t caller(const struct dthread *th)
{
	return th->depth ? th->frames[th->top].call_pc : 0;
}

static void push_frame(struct dthread *th, uint64_t call_pc, uint64_t return_to)
{
	th->top = (th->top + 1) % MAX_DEPTH;
	th->frames[th->top] = (struct frame){call_pc, return_to};
	if (th->depth < MAX_DEPTH)
		th->depth++;
}

/* A return landed at pc: the frames down to the call that returns there go. None such
 * (a longjmp, a signal handler's return, a call before the profile began): unchanged. */
static void pop_to(struct dthread *th, uint64_t pc)
{
	for (unsigned k = 0, at = th->top; k < th->depth;
	     k++, at = (at + MAX_DEPTH - 1) % MAX_DEPTH)
		if (th->frames[at].return_to == pc) {
			th->depth -= k + 1;
			th->top = (at + MAX_DEPTH - 1) % MAX_DEPTH;
			return;
		}
}

static bool inside_at(const struct dthread *th, uint64_t pc)
{
	bool in = th->kept_state & 1;
	for (unsigned k = 0; k < th->kept_state >> 1; k++)
		if (th->toggles[k].pc <= pc)
			in = th->toggles[k].inside;
	return in;
}

/* An entry for instruction i of the kept record. */
static void entry(struct dthread *th, uint32_t tid, const struct vp_block *blk, uint32_t i,
		  vp_batch_fn process)
{
	const struct vp_binsn *bi = &blk->insns[i];
	struct vprof_entry *e = &batch[nbatch];
	e->insn = bi->insn;
	e->tid = tid;
	e->context[0] = vp_spec.contexts & VPROF_CONTEXT_THREAD ? tid : 0;
	e->context[1] = vp_spec.contexts & VPROF_CONTEXT_CALLER ? caller(th) : 0;
	/* A REP string instruction that ran no iteration accessed no address. */
	uint32_t skip = bi->rcx_offset && !value_at(th->record, bi->rcx_offset) ? bi->addresses : 0;
	e->valid = 0;
	for (unsigned k = 0; k < bi->nvalues; k++) {
		e->values[k] = 0;
		if (!bi->offset[k] || (skip & (1u << k)))
			continue;
		uint64_t mask = bi->size[k] >= 8 ? ~0ull : (1ull << (8 * bi->size[k])) - 1;
		e->values[k] = (value_at(th->record, bi->offset[k]) >> bi->shift[k]) & mask;
		e->valid |= 1u << k;
	}
	batch_from[nbatch] = (struct vp_origin){bi->pc, bi->insn, &blk->stats[i]};
	if (++nbatch == VP_BATCH) {
		process(batch, batch_from, nbatch);
		nbatch = 0;
	}
}

/* The kept record's instructions below `end` ran; whole: its block ran to its end, and
 * its call or return counts. */
static void flush(struct dthread *th, uint32_t tid, uint64_t end, bool whole, vp_batch_fn process)
{
	struct vp_block *blk = th->kept;
	if (!blk)
		return;
	th->kept = NULL;
	if (th->kept_state)
		for (uint32_t i = 0; i < blk->ninsns; i++) {
			uint64_t pc = blk->insns[i].pc;
			if (pc >= end)
				break;
			if (inside_at(th, pc))
				entry(th, tid, blk, i, process);
		}
	if (!whole || !(vp_spec.contexts & VPROF_CONTEXT_CALLER))
		return;
	if (blk->end == VP_END_CALL)
		push_frame(th, blk->last_pc, blk->return_to);
	th->returning = blk->end == VP_END_RET;
}

static bool in_block(const struct vp_block *blk, uint64_t pc)
{
	return blk && pc >= blk->start_pc && pc <= blk->last_pc;
}

static void mark(struct dthread *th, uint32_t tid, uint64_t word, vp_batch_fn process)
{
	uint64_t pc = VP_MARK_PC(word);
	unsigned kind = VP_MARK_KIND(word);
	if (kind == VP_MARK_LEFT) {
		/* About the kept block, or else a block without a record after it. */
		bool left_kept = in_block(th->kept, pc);
		flush(th, tid, left_kept ? pc : UINT64_MAX, !left_kept, process);
		return;
	}
	if (kind == VP_MARK_GAP) {
		flush(th, tid, UINT64_MAX, true, process);
		th->depth = 0;
		th->returning = false;
		th->inside = pc;
		return;
	}
	bool inside = kind == VP_MARK_START;
	unsigned n = th->kept_state >> 1;
	if (in_block(th->kept, pc) && n < VP_MAX_MARKS) {
		th->toggles[n].pc = pc;
		th->toggles[n].inside = inside;
		th->kept_state += 2;
	}
	th->inside = inside;
}

static struct dthread *thread_of(uint32_t tid)
{
	if (!threads[tid] && !(threads[tid] = calloc(1, sizeof *threads[tid])))
		jit_fatal("-vprofile: out of memory");
	return threads[tid];
}

void vp_decode(const struct handoff_buffer *b, vp_batch_fn process)
{
	uint32_t tid = b->tid;
	if (tid >= TRACE_BUFFERS_MAX_THREADS)
		return;
	struct dthread *th = thread_of(tid);
	const uint8_t *p = (const uint8_t *)b->words, *end = p + b->used;
	while (p + 8 <= end) {
		uint64_t word = value_at(p, 0);
		if (word & VP_MARK) {
			mark(th, tid, word, process);
			p += 8;
			continue;
		}
		flush(th, tid, UINT64_MAX, true, process);
		struct vp_block *blk = vp_block_of(word);
		if (!blk || p + blk->bytes > end)
			jit_fatal("-vprofile: thread %u's buffer is corrupt at +%lu", tid,
				  (unsigned long)(p - (const uint8_t *)b->words));
		if (th->returning) {
			pop_to(th, blk->start_pc);
			th->returning = false;
		}
		th->kept = blk;
		th->record = p;
		th->kept_state = th->inside;
		p += blk->bytes;
	}
	/* The buffer goes back to the app: the kept record moves out of it. */
	if (th->kept && th->record != th->copy) {
		memcpy(th->copy, th->record, th->kept->bytes);
		th->record = th->copy;
	}
}

void vp_decode_end(vp_batch_fn process)
{
	for (uint32_t tid = 0; tid < TRACE_BUFFERS_MAX_THREADS; tid++)
		if (threads[tid])
			flush(threads[tid], tid, UINT64_MAX, true, process);
	if (nbatch)
		process(batch, batch_from, nbatch);
	nbatch = 0;
}

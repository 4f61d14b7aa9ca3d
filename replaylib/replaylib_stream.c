/* Reading the replayer's feed (feed_format.h) into instructions. Each thread's instruction
 * is held back until its next one arrives, which tells where it went and its registers
 * after it. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "feed_format.h"
#include "replaylib_internal.h"

enum { MAX_TIDS = 1024, BUFFER = 1 << 16 };

struct held {
	struct ptr_insn insn;
	uint8_t bytes[15];
	uint64_t regs[16], regs_after[16];
	ZydisDecodedInstruction decoded;
	ZydisDecodedOperand operands[ZYDIS_MAX_OPERAND_COUNT];
};

struct range {
	uint64_t addr, len;
	uint32_t prot;
	uint8_t *data;
};

struct ptr_replay {
	struct child child;
	unsigned flags;
	ZydisDecoder decoder;
	struct ptr_thread_state *threads;
	size_t nthreads;
	struct range *ranges;
	size_t nranges;
	struct held *held[MAX_TIDS];
	struct held out, incoming;
	bool ended, broken;
	uint32_t flush_tid; /* after the end: the next thread whose last instruction goes out */
	size_t pos, len;
	uint8_t buf[BUFFER];
};

/* Exactly n bytes of the stream; false at its end or on an error. */
static bool take(struct ptr_replay *r, void *dst, size_t n)
{
	uint8_t *d = dst;
	while (n) {
		if (r->pos == r->len) {
			ssize_t got = read(r->child.feed, r->buf, sizeof r->buf);
			if (got < 0 && errno == EINTR)
				continue;
			if (got <= 0)
				return false;
			r->pos = 0;
			r->len = (size_t)got;
		}
		size_t k = r->len - r->pos < n ? r->len - r->pos : n;
		memcpy(d, r->buf + r->pos, k);
		r->pos += k;
		d += k;
		n -= k;
	}
	return true;
}

static bool read_header(struct ptr_replay *r)
{
	char magic[8];
	uint32_t flags, n;
	if (!take(r, magic, 8) || memcmp(magic, FEED_MAGIC, 8) || !take(r, &flags, 4) ||
	    !take(r, &n, 4) || n > MAX_TIDS ||
	    !(r->threads = calloc(n ? n : 1, sizeof *r->threads)))
		return false;
	r->nthreads = n;
	for (uint32_t i = 0; i < n; i++) {
		struct ptr_thread_state *t = &r->threads[i];
		uint32_t head[2];
		uint64_t state[3];
		if (!take(r, head, sizeof head) || !take(r, t->gpr, sizeof t->gpr) ||
		    !take(r, state, sizeof state))
			return false;
		t->tid = head[0];
		t->at_start = head[1];
		t->rip = state[0];
		t->rflags = state[1];
		t->fs_base = state[2];
	}
	for (size_t cap = 0; flags & FEED_MEMORY;) {
		uint64_t addr;
		uint32_t head[2];
		if (!take(r, &addr, 8) || !take(r, head, sizeof head))
			return false;
		if (!head[1])
			break;
		if (r->nranges == cap) {
			cap = cap ? 2 * cap : 64;
			struct range *m = realloc(r->ranges, cap * sizeof *m);
			if (!m)
				return false;
			r->ranges = m;
		}
		struct range *g = &r->ranges[r->nranges++];
		*g = (struct range){addr, head[1], head[0], malloc(head[1])};
		if (!g->data || !take(r, g->data, g->len))
			return false;
	}
	return true;
}

struct ptr_replay *ptr_replay_open(const char *pinball, unsigned flags, char *err, size_t errlen)
{
	struct ptr_replay *r = calloc(1, sizeof *r);
	if (!r) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	r->flags = flags;
	ZydisDecoderInit(&r->decoder, ZYDIS_MACHINE_MODE_LONG_64, ZYDIS_STACK_WIDTH_64);
	if (child_start(&r->child, pinball, flags, err, errlen)) {
		free(r);
		return NULL;
	}
	if (!read_header(r)) {
		/* the replayer said why on its stderr (a missing or corrupt pinball, ...) */
		child_end(&r->child, false, err, errlen);
		r->child.pid = 0;
		ptr_replay_close(r, NULL, 0);
		return NULL;
	}
	return r;
}

size_t ptr_replay_threads(const struct ptr_replay *r)
{
	return r->nthreads;
}

const struct ptr_thread_state *ptr_replay_thread(const struct ptr_replay *r, size_t i)
{
	return i < r->nthreads ? &r->threads[i] : NULL;
}

int ptr_replay_memory(const struct ptr_replay *r, ptr_memory_fn fn, void *arg)
{
	for (size_t i = 0; i < r->nranges; i++) {
		int rc = fn(r->ranges[i].addr, r->ranges[i].prot, r->ranges[i].data,
			    r->ranges[i].len, arg);
		if (rc)
			return rc;
	}
	return 0;
}

static bool read_insn(struct ptr_replay *r, struct held *h)
{
	struct ptr_insn *in = &h->insn;
	uint8_t nmem, branch[2];
	memset(in, 0, sizeof *in);
	if (!take(r, &in->tid, 4) || in->tid >= MAX_TIDS || !take(r, &in->pc, 8) ||
	    !take(r, &in->length, 1) || in->length > 15 || !take(r, h->bytes, in->length) ||
	    !take(r, &nmem, 1) || nmem > 4)
		return false;
	in->nmem = nmem;
	for (unsigned m = 0; m < nmem; m++) {
		uint8_t rw;
		if (!take(r, &in->mem[m].address, 8) || !take(r, &in->mem[m].size, 2) ||
		    !take(r, &rw, 1))
			return false;
		in->mem[m].read = rw & FEED_READ;
		in->mem[m].write = rw & FEED_WRITE;
	}
	if (!take(r, branch, 2) || branch[0] > PTR_RETURN)
		return false;
	in->branch = (enum ptr_branch)branch[0];
	in->taken = branch[1];
	return !(r->flags & PTR_REGS) || take(r, h->regs, sizeof h->regs);
}

/* The held instruction goes out, now that its successor (pc next, registers after) is
 * known (next 0, after NULL: there is none). */
static const struct ptr_insn *release(struct ptr_replay *r, struct held *h, uint64_t next,
				      const uint64_t *after)
{
	struct held *o = &r->out;
	*o = *h;
	struct ptr_insn *in = &o->insn;
	in->bytes = o->bytes;
	in->next_pc = next;
	if (ZYAN_FAILED(ZydisDecoderDecodeFull(&r->decoder, o->bytes, in->length, &o->decoded,
					       o->operands)))
		memset(&o->decoded, 0, sizeof o->decoded);
	in->decoded = &o->decoded;
	in->operands = o->operands;
	if (r->flags & PTR_REGS) {
		in->regs_before = o->regs;
		if (after)
			memcpy(o->regs_after, after, sizeof o->regs_after);
		in->regs_after = after ? o->regs_after : NULL;
	}
	return in;
}

int ptr_replay_next(struct ptr_replay *r, const struct ptr_insn **insn)
{
	struct held *incoming = &r->incoming;
	while (!r->broken) {
		if (r->ended) {
			while (r->flush_tid < MAX_TIDS && !r->held[r->flush_tid])
				r->flush_tid++;
			if (r->flush_tid == MAX_TIDS)
				return 0;
			struct held *h = r->held[r->flush_tid];
			r->held[r->flush_tid++] = NULL;
			*insn = release(r, h, 0, NULL);
			free(h);
			return 1;
		}
		uint8_t kind;
		if (!take(r, &kind, 1) || (kind != FEED_INSN && kind != FEED_END))
			break;
		if (kind == FEED_END) {
			r->ended = true;
			continue;
		}
		if (!read_insn(r, incoming))
			break;
		struct held **slot = &r->held[incoming->insn.tid];
		if (!*slot) {
			if (!(*slot = malloc(sizeof **slot)))
				break;
			**slot = *incoming;
			continue;
		}
		*insn = release(r, *slot, incoming->insn.pc, incoming->regs);
		**slot = *incoming;
		return 1;
	}
	r->broken = true;
	return -1;
}

int ptr_replay_run(struct ptr_replay *r, ptr_insn_fn fn, void *arg)
{
	const struct ptr_insn *in;
	int rc;
	while ((rc = ptr_replay_next(r, &in)) > 0)
		fn(in, arg);
	return rc;
}

int ptr_replay_close(struct ptr_replay *r, char *msg, size_t msglen)
{
	int rc = r->child.pid ? child_end(&r->child, r->ended, msg, msglen) : -1;
	for (size_t i = 0; i < MAX_TIDS; i++)
		free(r->held[i]);
	for (size_t i = 0; i < r->nranges; i++)
		free(r->ranges[i].data);
	free(r->ranges);
	free(r->threads);
	free(r);
	return rc;
}

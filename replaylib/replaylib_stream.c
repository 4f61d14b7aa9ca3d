/* Reading the replayer's feed (feed_format.h) into instructions. Each thread's instruction
 * is held back until its next one arrives, which tells where it went and its registers
 * after it. Decoding is cached by pc (and bytes): a replay runs the same instructions
 * over and over. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "feed_format.h"
#include "replaylib_internal.h"

enum { MAX_TIDS = 1024, BUFFER = 1 << 16, DECODED = 1 << 13 };

struct held {
	struct ptr_insn insn;
	uint8_t bytes[15];
	uint64_t regs[16], regs_after[16];
};

struct decoded {
	uint64_t pc;
	uint8_t length, bytes[15];
	ZydisDecodedInstruction insn;
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
	struct held *out;	 /* the instruction given out last (a free buffer after) */
	struct held *incoming;	 /* a free buffer to read into */
	struct decoded *decoded; /* DECODED entries, by pc */
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
		t->at_start = head[1] & FEED_AT_START;
		t->in_syscall = head[1] & FEED_IN_SYSCALL;
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
	if (!(r->decoded = calloc(DECODED, sizeof *r->decoded))) {
		free(r);
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	ZydisDecoderInit(&r->decoder, ZYDIS_MACHINE_MODE_LONG_64, ZYDIS_STACK_WIDTH_64);
	if (child_start(&r->child, pinball, flags, err, errlen)) {
		free(r->decoded);
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

/* At least `want` bytes of the stream in the buffer, contiguous (fewer at its end). */
static size_t buffered(struct ptr_replay *r, size_t want)
{
	if (r->len - r->pos >= want)
		return r->len - r->pos;
	memmove(r->buf, r->buf + r->pos, r->len - r->pos);
	r->len -= r->pos;
	r->pos = 0;
	while (r->len < want) {
		ssize_t got = read(r->child.feed, r->buf + r->len, sizeof r->buf - r->len);
		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0)
			break;
		r->len += (size_t)got;
	}
	return r->len;
}

/* The most bytes an instruction's record takes (feed_format.h). */
enum { INSN_RECORD_MAX = 4 + 8 + 1 + 15 + 1 + 4 * 11 + 2 + 128 };

/* An instruction's record (after its kind byte) into h; false when it is cut or wrong. */
static bool read_insn(struct ptr_replay *r, struct held *h)
{
	size_t have = buffered(r, INSN_RECORD_MAX);
	const uint8_t *p = r->buf + r->pos, *end = p + have;
	struct ptr_insn *in = &h->insn;
#define GET(dst, n)                                                                                \
	do {                                                                                       \
		if ((size_t)(end - p) < (n))                                                       \
			return false;                                                              \
		memcpy((dst), p, (n));                                                             \
		p += (n);                                                                          \
	} while (0)
	uint8_t nmem, branch[2];
	/* Field by field: a memset of the whole would cost more than the rest (a string
	 * store); mem[] past nmem is left as it is. */
	in->next_pc = 0;
	in->decoded = NULL;
	in->operands = NULL;
	in->regs_before = in->regs_after = NULL;
	GET(&in->tid, 4);
	GET(&in->pc, 8);
	GET(&in->length, 1);
	if (in->tid >= MAX_TIDS || in->length > 15)
		return false;
	GET(h->bytes, in->length);
	GET(&nmem, 1);
	if (nmem > 4)
		return false;
	in->nmem = nmem;
	for (unsigned m = 0; m < nmem; m++) {
		uint8_t rw;
		GET(&in->mem[m].address, 8);
		GET(&in->mem[m].size, 2);
		GET(&rw, 1);
		in->mem[m].read = rw & FEED_READ;
		in->mem[m].write = rw & FEED_WRITE;
	}
	GET(branch, 2);
	if (branch[0] > PTR_RETURN)
		return false;
	in->branch = (enum ptr_branch)branch[0];
	in->taken = branch[1];
	in->bytes = h->bytes;
	if (r->flags & PTR_REGS) {
		GET(h->regs, sizeof h->regs);
		in->regs_before = h->regs;
	}
#undef GET
	r->pos = (size_t)(p - r->buf);
	return true;
}

static const struct decoded *decode(struct ptr_replay *r, const struct ptr_insn *in,
				    const uint8_t *bytes)
{
	struct decoded *d = &r->decoded[(in->pc ^ (in->pc >> 13)) % DECODED];
	if (d->pc == in->pc && d->length == in->length && !memcmp(d->bytes, bytes, in->length))
		return d;
	d->pc = in->pc;
	d->length = in->length;
	memcpy(d->bytes, bytes, in->length);
	if (ZYAN_FAILED(
		ZydisDecoderDecodeFull(&r->decoder, bytes, in->length, &d->insn, d->operands))) {
		memset(&d->insn, 0, sizeof d->insn);
		d->length = 0; /* not kept */
	}
	return d;
}

/* h, held for its thread, goes out now that its successor (pc next, registers after) is
 * known (next 0, after NULL: there is none). Buffers change hands, nothing is copied but
 * the registers after. */
static const struct ptr_insn *release(struct ptr_replay *r, struct held *h, uint64_t next,
				      const uint64_t *after)
{
	struct held *o = h;
	struct ptr_insn *in = &o->insn;
	in->next_pc = next;
	const struct decoded *d = decode(r, in, o->bytes);
	in->decoded = &d->insn;
	in->operands = d->operands;
	if ((r->flags & PTR_REGS) && after) {
		memcpy(o->regs_after, after, sizeof o->regs_after);
		in->regs_after = o->regs_after;
	}
	return in;
}

int ptr_replay_next(struct ptr_replay *r, const struct ptr_insn **insn)
{
	while (!r->broken) {
		if (r->ended) {
			while (r->flush_tid < MAX_TIDS && !r->held[r->flush_tid])
				r->flush_tid++;
			if (r->flush_tid == MAX_TIDS)
				return 0;
			/* the last one of a thread: it stays r->out until the next call */
			free(r->out);
			r->out = r->held[r->flush_tid];
			r->held[r->flush_tid++] = NULL;
			*insn = release(r, r->out, 0, NULL);
			return 1;
		}
		uint8_t kind;
		if (!take(r, &kind, 1) || (kind != FEED_INSN && kind != FEED_END))
			break;
		if (kind == FEED_END) {
			r->ended = true;
			continue;
		}
		if (!r->incoming && !(r->incoming = malloc(sizeof *r->incoming)))
			break;
		if (!read_insn(r, r->incoming))
			break;
		struct held **slot = &r->held[r->incoming->insn.tid];
		struct held *previous = *slot;
		*slot = r->incoming;
		r->incoming = r->out; /* the buffer given out last time is free again */
		r->out = previous;
		if (previous) {
			*insn = release(r, previous, (*slot)->insn.pc, (*slot)->regs);
			return 1;
		}
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
	free(r->out);
	free(r->incoming);
	for (size_t i = 0; i < r->nranges; i++)
		free(r->ranges[i].data);
	free(r->ranges);
	free(r->threads);
	free(r->decoded);
	free(r);
	return rc;
}

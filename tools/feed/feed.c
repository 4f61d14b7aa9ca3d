/* The feed sink of the capture: packs each executed instruction (helper thread). */
#include "feed.h"

#include <stdio.h>
#include <string.h>

#include "capture.h"
#include "feed_format.h"
#include "jit_messages.h"
#include "trace_output.h"

enum { STAGE = 1 << 20, RECORD_MAX = 1 + 4 + 8 + 1 + 15 + 1 + 4 * 11 + 2 + 128 };

static struct {
	struct trace_output *out;
	uint32_t flags;
	size_t staged;
	uint8_t stage[STAGE];
} fd_;

static void flush(void)
{
	trace_output_must_write(fd_.out, fd_.stage, fd_.staged, "-trace feed");
	fd_.staged = 0;
}

static void put(const void *p, size_t n)
{
	memcpy(fd_.stage + fd_.staged, p, n);
	fd_.staged += n;
}

static void exec(const struct capture_exec *x, void *arg)
{
	(void)arg;
	if (fd_.staged + RECORD_MAX > STAGE)
		flush();
	const struct capture_insn *in = x->insn;
	const struct insn_facts *f = &in->facts;
	uint8_t kind = FEED_INSN;
	put(&kind, 1);
	put(&x->tid, 4);
	put(&in->pc, 8);
	put(&in->length, 1);
	put(in->bytes, in->length);
	put(&f->nmem, 1);
	for (uint8_t m = 0; m < f->nmem; m++) {
		uint8_t rw = (uint8_t)((f->mem[m].read ? FEED_READ : 0) |
				       (f->mem[m].write ? FEED_WRITE : 0));
		put(&x->address[m], 8);
		put(&f->mem[m].size, 2);
		put(&rw, 1);
	}
	uint8_t branch[2] = {f->branch, x->taken};
	put(branch, 2);
	if (fd_.flags & FEED_REGS) {
		static const uint64_t none[16];
		put(x->gpr ? x->gpr : none, 128);
	}
}

static void finish(void *arg)
{
	(void)arg;
	uint8_t end = FEED_END;
	put(&end, 1);
	flush();
	char err[512];
	if (trace_output_close(fd_.out, err, sizeof err))
		jit_fatal("-trace feed: %s", err);
}

static bool write_all(const void *p, size_t n)
{
	return trace_output_write(fd_.out, p, n);
}

int feed_start(const char *path, bool regs, const struct feed_thread *threads, size_t nthreads,
	       const struct feed_range *memory, size_t nranges, char *err, size_t errlen)
{
	if (!(fd_.out = trace_output_open(path, -1, err, errlen)))
		return -1;
	fd_.flags = (regs ? FEED_REGS : 0) | (memory ? FEED_MEMORY : 0);
	uint32_t n = (uint32_t)nthreads;
	bool ok = write_all(FEED_MAGIC, 8) && write_all(&fd_.flags, 4) && write_all(&n, 4);
	for (size_t i = 0; ok && i < nthreads; i++) {
		const struct feed_thread *t = &threads[i];
		uint32_t head[2] = {t->tid, (t->at_start ? FEED_AT_START : 0) |
						(t->in_syscall ? FEED_IN_SYSCALL : 0)};
		uint64_t state[3] = {t->rip, t->rflags, t->fs_base};
		ok = write_all(head, sizeof head) && write_all(t->gpr, sizeof t->gpr) &&
		     write_all(state, sizeof state);
	}
	for (size_t i = 0; ok && memory && i <= nranges; i++) {
		/* one record per range, and an empty one to end */
		uint64_t addr = i < nranges ? memory[i].addr : 0;
		uint32_t head[2] = {i < nranges ? memory[i].prot : 0,
				    i < nranges ? (uint32_t)memory[i].len : 0};
		ok = write_all(&addr, 8) && write_all(head, sizeof head) &&
		     (i == nranges || write_all(memory[i].data, memory[i].len));
	}
	if (!ok) {
		snprintf(err, errlen, "-trace feed: cannot write '%s'", path);
		return -1;
	}
	static const struct capture_sink sink = {exec, finish, NULL};
	return capture_start(&sink, regs, err, errlen);
}

/* The -debugtrace client (app threads, TLS-free): a callout before every instruction
 * finishes the line of the thread's previous instruction (whose results are now in the
 * registers and memory) and notes the addresses and the values read of the next one. A
 * line is kept only if its instruction ran inside a region, which is known once the
 * controller's events at that count have come (they may come after the callout). */
#include "debugtrace.h"

#include <string.h>

#include "debugtrace_insn.h"
#include "debugtrace_internal.h"
#include "instrument.h"
#include "jit_messages.h"
#include "rt_alloc.h"
#include "rt_format.h"

enum { MAX_THREADS = 4096, TRANSITIONS = 8, LINE_MAX = 2048, VALUE_MAX = 64 };

struct dt_thread {
	const struct dt_insn *pending;
	uint64_t pending_icount;
	uint64_t address[INSN_MAX_MEMOPS];
	uint8_t read[INSN_MAX_MEMOPS][VALUE_MAX];
	bool read_ok[INSN_MAX_MEMOPS];
	/* The thread's last region transitions: from `icount` on it was inside or not. */
	struct {
		uint64_t icount;
		bool inside;
	} transitions[TRANSITIONS];
	int ntransitions;
	struct handoff_buffer *buf;
};

static struct {
	struct handoff *handoff;
	int state_slot;
	struct dt_thread *threads[MAX_THREADS];
	uint32_t threads_dropped;
} dt;

static struct dt_thread *thread_of(const struct jit_thread *t)
{
	return (struct dt_thread *)jit_thread_slot_get(t, dt.state_slot);
}

static bool inside_at(const struct dt_thread *th, uint64_t icount)
{
	for (int k = th->ntransitions - 1; k >= 0; k--)
		if (th->transitions[k].icount <= icount)
			return th->transitions[k].inside;
	return false;
}

static void transition(struct dt_thread *th, uint64_t icount, bool inside)
{
	if (!th)
		return;
	if (th->ntransitions == TRANSITIONS) {
		memmove(th->transitions, th->transitions + 1,
			sizeof th->transitions[0] * (TRANSITIONS - 1));
		th->ntransitions--;
	}
	th->transitions[th->ntransitions].icount = icount;
	th->transitions[th->ntransitions++].inside = inside;
}

void debugtrace_event(const struct control_event_info *ev)
{
	if (ev->event != CONTROL_EVENT_START && ev->event != CONTROL_EVENT_STOP)
		return;
	bool start = ev->event == CONTROL_EVENT_START;
	if (!ev->bcast) {
		transition(thread_of(ev->thread), ev->icount, start);
		return;
	}
	for (size_t i = 0; i < jit_thread_count(); i++) {
		struct jit_thread *t = jit_thread_at(i);
		transition(thread_of(t), t == ev->thread ? ev->icount : jit_thread_icount(t),
			   start);
	}
}

/* "0x..." of `size` little-endian bytes (more than 8: all of them, most significant first). */
static size_t value(char *out, size_t cap, const uint8_t *v, unsigned size)
{
	size_t n = rt_format(out, cap, "0x");
	bool leading = true;
	for (unsigned k = size; k-- > 0;) {
		if (leading && !v[k] && k)
			continue;
		n += rt_format(out + n, cap > n ? cap - n : 0, leading ? "%x" : "%02x", v[k]);
		leading = false;
	}
	return n;
}

static unsigned shown(const struct dt_memop *m)
{
	return m->size && m->size < VALUE_MAX ? m->size : VALUE_MAX;
}

static size_t registers(char *out, size_t cap, const struct dt_insn *d, const struct jit_thread *t,
			const struct jit_regs *r)
{
	size_t n = 0;
	for (uint8_t k = 0; k < d->nwritten; k++) {
		ZydisRegister reg = (ZydisRegister)d->written[k];
		const char *name = ZydisRegisterGetString(reg);
		n += rt_format(out + n, cap - n, "%s%s=", k ? " " : " | ", name ? name : "?");
		if (reg == ZYDIS_REGISTER_RFLAGS) {
			n += rt_format(out + n, cap - n, "0x%lx", r->rflags);
		} else if (reg >= ZYDIS_REGISTER_XMM0 && reg <= ZYDIS_REGISTER_XMM15) {
			size_t len;
			const uint8_t *xsave = jit_thread_xsave(t, &len);
			/* the legacy area: xmm0 at byte 160, 16 bytes each */
			n += value(out + n, cap - n, xsave + 160 + 16 * (reg - ZYDIS_REGISTER_XMM0),
				   16);
		} else {
			n += rt_format(out + n, cap - n, "0x%lx", r->gpr[ZydisRegisterGetId(reg)]);
		}
	}
	return n;
}

static void emit(struct dt_thread *th, const char *line, size_t len)
{
	if (th->buf->used + len > sizeof th->buf->words) {
		handoff_put(dt.handoff, th->buf);
		if (!(th->buf = handoff_get(dt.handoff)))
			jit_fatal("-debugtrace: out of memory");
	}
	memcpy((char *)th->buf->words + th->buf->used, line, len);
	th->buf->used += (uint32_t)len;
}

/* The line of the pending instruction, whose effects are in t's state r now. */
static void finish(struct dt_thread *th, const struct jit_thread *t, const struct jit_regs *r)
{
	const struct dt_insn *d = th->pending;
	th->pending = NULL;
	if (!d || !inside_at(th, th->pending_icount))
		return;
	char line[LINE_MAX];
	size_t cap = sizeof line - 1, n;
	n = rt_format(line, cap, "%u %lu 0x%lx: %s", jit_thread_id(t), th->pending_icount, d->pc,
		      d->text);
	for (uint8_t m = 0; m < d->nmem && n < cap; m++) {
		const struct dt_memop *op = &d->mem[m];
		if (op->read) {
			n += rt_format(line + n, cap - n, " | R 0x%lx/%u=", th->address[m],
				       op->size);
			n += th->read_ok[m] ? value(line + n, cap - n, th->read[m], shown(op))
					    : rt_format(line + n, cap - n, "?");
		}
		if (op->write) {
			uint8_t v[VALUE_MAX];
			bool ok = jit_read_app_memory(v, th->address[m], shown(op));
			n += rt_format(line + n, cap - n, " | W 0x%lx/%u=", th->address[m],
				       op->size);
			n += ok ? value(line + n, cap - n, v, shown(op))
				: rt_format(line + n, cap - n, "?");
		}
	}
	if (n < cap)
		n += registers(line + n, cap - n, d, t, r);
	if (n > cap)
		n = cap;
	line[n++] = '\n';
	emit(th, line, n);
}

static void before(const struct jit_callout *c)
{
	struct dt_thread *th = thread_of(c->thread);
	if (!th)
		return;
	struct jit_regs r;
	jit_thread_get_regs(c->thread, &r);
	finish(th, c->thread, &r);
	const struct dt_insn *d = c->arg;
	th->pending = d;
	th->pending_icount = jit_callout_icount(c);
	for (uint8_t m = 0; m < d->nmem; m++) {
		th->address[m] = dt_address(&d->mem[m], &r);
		th->read_ok[m] = d->mem[m].read && jit_read_app_memory(th->read[m], th->address[m],
								       shown(&d->mem[m]));
	}
}

/* Translation is serialised by the runtime. */
static void instrument(struct jit_block *b, void *arg)
{
	(void)arg;
	size_t n = jit_block_length(b);
	struct dt_insn *d = rt_alloc(n * sizeof *d);
	if (!d)
		jit_fatal("-debugtrace: out of memory");
	for (size_t i = 0; i < n; i++) {
		dt_describe(b, i, &d[i]);
		jit_insert_callout(b, i, before, &d[i]);
	}
}

static void thread_start(struct jit_thread *t, uint64_t pc, void *arg)
{
	(void)pc;
	(void)arg;
	uint32_t tid = jit_thread_id(t);
	struct dt_thread *th = tid < MAX_THREADS ? rt_calloc(1, sizeof *th) : NULL;
	if (th && !(th->buf = handoff_get(dt.handoff)))
		jit_fatal("-debugtrace: out of memory");
	if (th)
		dt.threads[tid] = th;
	else
		__atomic_fetch_add(&dt.threads_dropped, 1, __ATOMIC_RELAXED);
	jit_thread_slot_set(t, dt.state_slot, (uint64_t)th);
}

static void at_exit(int status, void *arg)
{
	(void)status;
	(void)arg;
	for (size_t i = 0; i < jit_thread_count(); i++) {
		const struct jit_thread *t = jit_thread_at(i);
		struct dt_thread *th = thread_of(t);
		if (!th)
			continue;
		struct jit_regs r;
		jit_thread_get_regs(t, &r);
		finish(th, t, &r);
		handoff_put(dt.handoff, th->buf);
		th->buf = NULL;
		jit_thread_slot_set((struct jit_thread *)t, dt.state_slot, 0);
	}
	if (dt.threads_dropped)
		jit_message(
		    "warning: -debugtrace: %u threads beyond the limit of %u were not traced",
		    dt.threads_dropped, MAX_THREADS);
	handoff_finish(dt.handoff);
}

static const struct jit_client client = {
    .name = "debugtrace",
    .instrument_block = instrument,
    .thread_start = thread_start,
    .at_exit = at_exit,
};

int debugtrace_client_register(struct handoff *h, char *err, size_t errlen)
{
	dt.handoff = h;
	dt.state_slot = jit_thread_slot_reserve();
	if (dt.state_slot < 0) {
		rt_format(err, errlen, "no per-thread slot left for -debugtrace");
		return -1;
	}
	jit_register_client(&client);
	return 0;
}

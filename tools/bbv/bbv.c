/* The -bbv client (app threads, TLS-free): a budget check ends each interval at a block
 * start, and the callout writes the interval's vector: what the thread's block counts
 * (block_counts.h, cumulative) gained since the last interval. */
#include <string.h>
#include <sys/mman.h>

#include "bbv_internal.h"
#include "block_counts.h"
#include "instrument.h"
#include "jit_messages.h"
#include "rt_alloc.h"
#include "rt_format.h"
#include "rt_syscall.h"

enum { MAX_THREADS = 1024, ENTRY_MAX = 48 };

struct bbv_thread {
	uint64_t *seen; /* per block record: its instructions at the last interval's end */
	struct handoff_buffer *buf;
};

static struct {
	struct handoff *handoff;
	uint64_t interval;
	int budget_slot;
	struct bbv_thread *threads[MAX_THREADS];
} bv;

static void emit(struct bbv_thread *th, uint32_t tid, const char *s, size_t n)
{
	if (th->buf->used + n > sizeof th->buf->words) {
		handoff_put(bv.handoff, th->buf);
		if (!(th->buf = handoff_get(bv.handoff)))
			jit_fatal("-bbv: out of memory");
		th->buf->tid = tid;
	}
	memcpy((char *)th->buf->words + th->buf->used, s, n);
	th->buf->used += (uint32_t)n;
}

struct visit {
	struct bbv_thread *th;
	uint32_t tid;
	uint32_t record; /* the record being summed */
	uint64_t total;	 /* its instructions so far (cumulative) */
	bool any;	 /* the line has an entry */
};

/* The record's total is complete: its gain since the last interval is an entry. */
static void close_record(struct visit *v)
{
	if (!v->record)
		return;
	uint64_t gained = v->total - v->th->seen[v->record];
	if (gained) {
		char e[ENTRY_MAX];
		size_t n =
		    rt_format(e, sizeof e, "%s:%u:%lu ", v->any ? "" : "T", v->record, gained);
		emit(v->th, v->tid, e, n);
		v->any = true;
		v->th->seen[v->record] = v->total;
	}
	v->record = 0;
	v->total = 0;
}

static void visit_counts(const struct counted_block *b, uint32_t first, uint32_t end,
			 uint64_t times, void *arg)
{
	struct visit *v = arg;
	uint32_t r = block_counts_record_index(b);
	if (r != v->record) {
		close_record(v);
		v->record = r;
	}
	v->total += (uint64_t)(end - first) * times;
}

static struct bbv_thread *thread_of(uint32_t tid)
{
	return tid < MAX_THREADS ? bv.threads[tid] : NULL;
}

static void write_interval(struct jit_thread *t)
{
	uint32_t tid = jit_thread_id(t);
	struct bbv_thread *th = thread_of(tid);
	if (!th)
		return;
	struct visit v = {th, tid, 0, 0, false};
	block_counts_for_thread(tid, visit_counts, &v);
	close_record(&v);
	if (v.any)
		emit(th, tid, "\n", 1);
}

static void interval_end(const struct jit_callout *c)
{
	write_interval(c->thread);
	jit_thread_slot_set(c->thread, bv.budget_slot,
			    jit_thread_slot_get(c->thread, bv.budget_slot) + bv.interval);
}

static void instrument(struct jit_block *b, void *arg)
{
	(void)arg;
	jit_insert_budget_check(b, bv.budget_slot, interval_end, NULL);
}

static void thread_start(struct jit_thread *t, uint64_t pc, void *arg)
{
	(void)pc;
	(void)arg;
	jit_thread_slot_set(t, bv.budget_slot, bv.interval);
	uint32_t tid = jit_thread_id(t);
	if (tid >= MAX_THREADS)
		return;
	struct bbv_thread *th = rt_calloc(1, sizeof *th);
	long r = rt_mmap(NULL, BLOCK_COUNTS_MAX_RECORDS * sizeof(uint64_t), PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (!th || rt_is_error(r) || !(th->buf = handoff_get(bv.handoff)))
		jit_fatal("-bbv: out of memory");
	th->seen = (uint64_t *)r;
	th->buf->tid = tid;
	bv.threads[tid] = th;
}

/* The last, partial interval of every thread, then the files. */
static void at_exit(int status, void *arg)
{
	(void)status;
	(void)arg;
	for (size_t i = 0; i < jit_thread_count(); i++) {
		struct jit_thread *t = jit_thread_at(i);
		struct bbv_thread *th = thread_of(jit_thread_id(t));
		if (!th)
			continue;
		write_interval(t);
		handoff_put(bv.handoff, th->buf);
		th->buf = NULL;
	}
	handoff_finish(bv.handoff);
}

static const struct jit_client client = {
    .name = "bbv",
    .instrument_block = instrument,
    .thread_start = thread_start,
    .at_exit = at_exit,
};

int bbv_client_register(struct handoff *h, uint64_t interval, char *err, size_t errlen)
{
	bv.handoff = h;
	bv.interval = interval;
	bv.budget_slot = jit_thread_slot_reserve();
	if (bv.budget_slot < 0) {
		rt_format(err, errlen, "no per-thread slot left for -bbv");
		return -1;
	}
	if (block_counts_register(err, errlen))
		return -1;
	jit_register_client(&client);
	return 0;
}

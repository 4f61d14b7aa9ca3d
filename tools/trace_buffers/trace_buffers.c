#include "trace_buffers.h"

#include <string.h>
#include <sys/mman.h>

#include "instrument.h"
#include "jit_messages.h"
#include "rt_format.h"
#include "rt_syscall.h"

/* Far below any room a buffer has: a room slot lowered by it stays negative until the
 * next block start subtracts its record. */
#define FORCE (1ll << 40)

static struct handoff_buffer *fresh_buffer(struct trace_buffers *tb, uint32_t tid)
{
	struct handoff_buffer *b = handoff_get(tb->handoff);
	if (!b)
		jit_fatal("%s: out of memory for trace buffers", tb->tool);
	b->tid = tid;
	return b;
}

static uint32_t buffer_room(const struct trace_buffers *tb)
{
	return HANDOFF_BUFFER_BYTES - tb->margin;
}

/* Points the thread at a buffer's words, `used` bytes of which are written already. */
static void point_at(struct trace_buffers *tb, struct jit_thread *t, uint64_t *words,
		     uint32_t used)
{
	jit_thread_slot_set(t, tb->buffer_slot, (uint64_t)words + used);
	jit_thread_slot_set(t, tb->room_slot, (int64_t)buffer_room(tb) - used);
}

int trace_buffers_init(struct trace_buffers *tb, struct handoff *h, const char *tool,
		       uint32_t margin, char *err, size_t errlen)
{
	tb->handoff = h;
	tb->tool = tool;
	tb->margin = margin;
	tb->buffer_slot = jit_thread_slot_reserve();
	tb->room_slot = jit_thread_slot_reserve();
	if (tb->buffer_slot < 0 || tb->room_slot < 0) {
		rt_format(err, errlen, "no per-thread slot left for %s", tool);
		return -1;
	}
	long r =
	    rt_mmap(NULL, TRACE_BUFFERS_MAX_BLOCKS * sizeof *tb->blocks, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (rt_is_error(r)) {
		rt_format(err, errlen, "cannot reserve memory for %s", tool);
		return -1;
	}
	tb->blocks = (void **)r;
	if (!(tb->discard = handoff_get(h))) {
		rt_format(err, errlen, "out of memory for %s", tool);
		return -1;
	}
	return 0;
}

void trace_buffers_add_block(struct trace_buffers *tb, struct jit_block *b, void *layout,
			     uint32_t bytes, jit_callout_fn full)
{
	if (tb->nblocks + 1 >= TRACE_BUFFERS_MAX_BLOCKS)
		jit_fatal("%s: more than %u translated blocks", tb->tool, TRACE_BUFFERS_MAX_BLOCKS);
	uint32_t word = ++tb->nblocks;
	__atomic_store_n(&tb->blocks[word], layout, __ATOMIC_RELEASE);
	jit_insert_trace_block(b, tb->buffer_slot, tb->room_slot, bytes, word, full,
			       (void *)(uintptr_t)bytes);
	if (tb->skip_bytes)
		jit_insert_trace_skip(b, tb->skip_slot);
}

void *trace_buffers_layout(const struct trace_buffers *tb, uint64_t word)
{
	return word < TRACE_BUFFERS_MAX_BLOCKS
		   ? __atomic_load_n(&tb->blocks[word], __ATOMIC_ACQUIRE)
		   : NULL;
}

void trace_buffers_thread_start(struct trace_buffers *tb, struct jit_thread *t)
{
	uint32_t tid = jit_thread_id(t);
	if (tid >= TRACE_BUFFERS_MAX_THREADS) {
		__atomic_fetch_add(&tb->threads_dropped, 1, __ATOMIC_RELAXED);
		point_at(tb, t, tb->discard->words, 0);
		return;
	}
	tb->current[tid] = fresh_buffer(tb, tid);
	if (tb->skip_bytes)
		jit_thread_slot_set(t, tb->skip_slot, 0);
	point_at(tb, t, tb->current[tid]->words, 0);
}

int trace_buffers_sample(struct trace_buffers *tb, uint32_t period,
			 uint64_t (*gap_word)(const struct jit_thread *t), char *err, size_t errlen)
{
	if (period <= 1)
		return 0;
	if ((tb->skip_slot = jit_thread_slot_reserve()) < 0) {
		rt_format(err, errlen, "no per-thread slot left for %s", tb->tool);
		return -1;
	}
	/* Far from FORCE, so that a forced room check is told from a used-up skip. */
	int64_t bytes = (int64_t)(period - 1) * buffer_room(tb);
	tb->skip_bytes = bytes < FORCE / 4 ? bytes : FORCE / 4;
	tb->gap_word = gap_word;
	return 0;
}

static bool skipping(const struct trace_buffers *tb, const struct jit_thread *t)
{
	return tb->skip_bytes && jit_thread_slot_get(t, tb->skip_slot);
}

/* The begun record goes nowhere (where threads beyond the limit write: the block's stores
 * must land somewhere), and the thread's blocks run their copies without records until
 * skip_bytes of them have gone by. */
static void start_skipping(struct trace_buffers *tb, struct jit_thread *t, uint32_t bytes)
{
	tb->current[jit_thread_id(t)] = NULL;
	jit_thread_slot_set(t, tb->buffer_slot, (uint64_t)tb->discard->words + bytes);
	jit_thread_slot_set(t, tb->room_slot, (uint64_t)tb->skip_bytes);
	jit_thread_slot_set(t, tb->skip_slot, 1);
}

/* A skipping thread's room check fired: a forced one leaves the skip as it was; else the
 * next block's record goes to a fresh buffer, after the gap word and the n words. */
static void full_skipping(struct trace_buffers *tb, struct jit_thread *t, uint32_t tid,
			  const uint64_t *words, size_t n)
{
	int64_t room = (int64_t)jit_thread_slot_get(t, tb->room_slot);
	if (room < -FORCE / 2 && room + FORCE >= 0) {
		jit_thread_slot_set(t, tb->room_slot, (uint64_t)(room + FORCE));
		return;
	}
	struct handoff_buffer *b = tb->current[tid] = fresh_buffer(tb, tid);
	b->words[0] = tb->gap_word(t);
	memcpy(&b->words[1], words, n * sizeof *words);
	jit_thread_slot_set(t, tb->skip_slot, 0);
	point_at(tb, t, b->words, (uint32_t)(1 + n) * sizeof *words);
}

void trace_buffers_full(struct trace_buffers *tb, struct jit_thread *t, uint32_t bytes,
			const uint64_t *words, size_t n)
{
	uint32_t tid = jit_thread_id(t);
	if (tid >= TRACE_BUFFERS_MAX_THREADS) {
		point_at(tb, t, tb->discard->words, bytes);
		return;
	}
	if (skipping(tb, t)) {
		full_skipping(tb, t, tid, words, n);
		return;
	}
	struct handoff_buffer *b = tb->current[tid];
	uint8_t *begun = (uint8_t *)jit_thread_slot_get(t, tb->buffer_slot) - bytes;
	uint64_t word;
	memcpy(&word, begun, sizeof word);
	memcpy(begun, words, n * sizeof *words);
	begun += n * sizeof *words;
	uint32_t used = (uint32_t)(begun - (uint8_t *)b->words);
	if (used + bytes > buffer_room(tb)) {
		b->used = used;
		handoff_put(tb->handoff, b);
		if (tb->skip_bytes) {
			start_skipping(tb, t, bytes);
			return;
		}
		b = tb->current[tid] = fresh_buffer(tb, tid);
		used = 0;
	}
	memcpy((uint8_t *)b->words + used, &word, sizeof word);
	point_at(tb, t, b->words, used + bytes);
}

void trace_buffers_force_full(struct trace_buffers *tb, struct jit_thread *t)
{
	int64_t room = (int64_t)jit_thread_slot_get(t, tb->room_slot);
	if (room >= 0)
		jit_thread_slot_set(t, tb->room_slot, (uint64_t)(room - FORCE));
}

void trace_buffers_append(struct trace_buffers *tb, struct jit_thread *t, uint64_t word)
{
	if (skipping(tb, t))
		return;
	uint64_t at = jit_thread_slot_get(t, tb->buffer_slot);
	memcpy((void *)at, &word, sizeof word);
	jit_thread_slot_set(t, tb->buffer_slot, at + 8);
	jit_thread_slot_set(t, tb->room_slot, jit_thread_slot_get(t, tb->room_slot) - 8);
}

void trace_buffers_finish(struct trace_buffers *tb)
{
	for (size_t i = 0; i < jit_thread_count(); i++) {
		const struct jit_thread *t = jit_thread_at(i);
		uint32_t tid = jit_thread_id(t);
		struct handoff_buffer *b =
		    tid < TRACE_BUFFERS_MAX_THREADS ? tb->current[tid] : NULL;
		if (!b)
			continue;
		b->used = (uint32_t)(jit_thread_slot_get(t, tb->buffer_slot) - (uint64_t)b->words);
		handoff_put(tb->handoff, b);
		tb->current[tid] = NULL;
	}
	if (tb->threads_dropped)
		jit_message("warning: %s: %u threads beyond the limit of %u were not traced",
			    tb->tool, tb->threads_dropped, TRACE_BUFFERS_MAX_THREADS);
	handoff_finish(tb->handoff);
}

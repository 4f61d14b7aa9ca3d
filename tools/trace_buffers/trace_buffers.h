/* Per-thread buffers of inline trace records (instrument.h, "Inline trace records") that go
 * to a helper thread through a hand-off (handoff.h): what every client of
 * jit_insert_trace_block needs around its own record layout. Each thread writes into its
 * current buffer through two slots (the position and the room left); when the room runs
 * out at a block's start, the buffer goes to the helper and the record just begun moves to
 * a fresh one. Words may be put between records (marks: where a thread left a block, where
 * a region began). Threads beyond TRACE_BUFFERS_MAX_THREADS write into a buffer nobody
 * reads, and are counted. Sampling (trace_buffers_sample) hands only some buffers to the
 * helper: in between, a thread runs its blocks' copies without records
 * (jit_insert_trace_skip), its room slot counting down the bytes it skips. App threads,
 * TLS-free. */
#ifndef TOOL_TRACE_BUFFERS_H
#define TOOL_TRACE_BUFFERS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "handoff.h"
#include "instrument.h"

enum {
	TRACE_BUFFERS_MAX_THREADS = 1024,
	TRACE_BUFFERS_MAX_BLOCKS = 1 << 22, /* block layouts (words 1 to this, less one) */
};

struct trace_buffers {
	struct handoff *handoff;
	const char *tool; /* for messages: "trace", "-vprofile" */
	/* Bytes a thread may write past its room: the largest record and the marks that may
	 * come with it. */
	uint32_t margin;
	int buffer_slot, room_slot;
	/* The client's layout of each translated block's record, by the word its records
	 * start with (0 is no block). */
	void **blocks;
	uint32_t nblocks;
	struct handoff_buffer *current[TRACE_BUFFERS_MAX_THREADS];
	/* Where threads beyond the limit write: round and round, read by nobody. */
	struct handoff_buffer *discard;
	uint32_t threads_dropped;
	/* Sampling: the bytes of records skipped after each buffer for the helper (0: none),
	 * and the slot that says a thread skips them. */
	int64_t skip_bytes;
	int skip_slot;
	/* The word that starts a sampled buffer after skipped records (the client's mark). */
	uint64_t (*gap_word)(const struct jit_thread *t);
};

/* Driver thread, before the app starts: reserves the two slots and the table of layouts.
 * 0, or -1 with the reason in err. */
int trace_buffers_init(struct trace_buffers *tb, struct handoff *h, const char *tool,
		       uint32_t margin, char *err, size_t errlen);

/* Driver thread, after init: each thread's first buffer and one in every `period` after it
 * go to the helper; in between, the thread skips as many bytes of records as period - 1
 * buffers hold. A buffer after skipped records starts with gap_word(t), then the words of
 * the trace_buffers_full that ends the skip; words given while skipping (to
 * trace_buffers_full or trace_buffers_append) are dropped: the gap word must say what they
 * would have. 0, or -1 with the reason in err. */
int trace_buffers_sample(struct trace_buffers *tb, uint32_t period,
			 uint64_t (*gap_word)(const struct jit_thread *t), char *err,
			 size_t errlen);

/* At translation (serialised by the runtime): block b's records are `bytes` long, laid out
 * as `layout` says (the client's own description, published for the helper); `full` is the
 * client's room callout, which gets `bytes` as its argument. */
void trace_buffers_add_block(struct trace_buffers *tb, struct jit_block *b, void *layout,
			     uint32_t bytes, jit_callout_fn full);

/* Helper thread: the layout of the records starting with `word`; NULL when there is none
 * (a corrupt buffer), and past the last block. */
void *trace_buffers_layout(const struct trace_buffers *tb, uint64_t word);

/* The thread's first buffer (a thread_start hook). */
void trace_buffers_thread_start(struct trace_buffers *tb, struct jit_thread *t);

/* From the room check's callout (jit_insert_trace_block's `full`), at the start of a block
 * whose record of `bytes` is begun: the `n` words go before that record (they follow the
 * previous one), and when the buffer has no room left it goes to the helper, the begun
 * record moving to a fresh one (or to nowhere, when the thread starts skipping). From a
 * skipping thread's block, which began none: the skip ends when its bytes are used up.
 * Also for a callout forced by making the room negative (trace_buffers_force_full): the
 * room is recomputed from the position (while skipping, the bytes left to skip stay). */
void trace_buffers_full(struct trace_buffers *tb, struct jit_thread *t, uint32_t bytes,
			const uint64_t *words, size_t n);

/* Makes t's next block start call `full` (t's room slot goes negative). From t itself; or
 * from another thread, in which case a store of t's own at that moment may undo it (its
 * next natural `full` then comes later). */
void trace_buffers_force_full(struct trace_buffers *tb, struct jit_thread *t);

/* A word at t's position, between records (a block_left hook: t left its block). */
void trace_buffers_append(struct trace_buffers *tb, struct jit_thread *t, uint64_t word);

/* At exit: every thread's last buffer goes to the helper (the other threads are parked or
 * gone, their buffers no longer change), a warning about threads beyond the limit, then
 * waits until the helper has finished. */
void trace_buffers_finish(struct trace_buffers *tb);

#endif

/* The capture's pieces as they share data: the
 * blocks' layouts (capture_client.c writes them at translation, the helper reads them),
 * the decoder (capture_decode.c). */
#ifndef TOOL_CAPTURE_INTERNAL_H
#define TOOL_CAPTURE_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "capture.h"
#include "handoff.h"
#include "trace_buffers.h"

enum {
	/* The largest record (the header, 64 instructions of 16 registers and 6 words) and a
	 * block_left mark: what a thread may write after its room ran out (also the size of
	 * the decoder's copy of a record, which reads up to 32 bytes past an instruction's
	 * values). */
	CAPTURE_MARGIN = 8 + 64 * (128 + 48) + 8 + 64,
	CAPTURE_MAX_THREADS = TRACE_BUFFERS_MAX_THREADS,
};

/* A word with this bit is no block's name but a mark: the thread left the block of the
 * record before it at the pc in the low bits (the instructions from there did not run). */
#define CAPTURE_LEFT_MARK (1ull << 63)

/* The layout of one translated block's record. */
struct capture_block {
	uint32_t bytes;
	uint32_t ninsns;
	struct capture_insn insns[];
};

/* The layout of the records starting with `word` (NULL: none). */
struct capture_block *capture_block_of(uint64_t word);

/* Driver thread: the JIT client (capture_client.c), whose buffers go to h. 0, or -1 with
 * the reason in err. */
int capture_client_register(struct handoff *h, bool gprs, char *err, size_t errlen);

/* Helper: the records of a buffer into the sink's executions; a thread's last block is
 * kept until the next word tells whether it ran whole. capture_decode_end: every
 * thread's kept block, at the end. */
void capture_decode(const struct handoff_buffer *b, const struct capture_sink *sink);
void capture_decode_end(const struct capture_sink *sink);

#endif

/* The value profiler's pieces as they share data: the client (vprof_client.c, app threads)
 * lays out each translated block's record and writes marks between records; the decoder
 * (vprof_decode.c, the first helper thread) turns records back into entries for the
 * plug-in; the merging thread (vprof_merge.h) counts the plug-in's samples in the profile;
 * the set-up (vprof_setup.c) starts them and writes the profile. */
#ifndef TOOL_VPROF_INTERNAL_H
#define TOOL_VPROF_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "handoff.h"
#include "pintrace_vprofiler.h"
#include "vprof_spec.h"

enum {
	/* Entries handed to the plug-in's process at a time. */
	VP_BATCH = 256,
	/* Marks a thread may have waiting for its next block start. */
	VP_MAX_MARKS = 8,
	/* The largest record (a word, then 64 instructions of 8 values and their addresses and
	 * a REP string's count) and the marks that may come with it. */
	VP_MARGIN = 8 + 64 * (16 * VPROF_MAX_VALUES + 8) + 8 * (VP_MAX_MARKS + 1),
};

/* A word with bit 63 is no block's name but a mark about the record before it: its kind
 * (bits 56-62) and a pc (bits 0-55). LEFT: the thread left that record's block before pc
 * (the instructions from pc on did not run). START, STOP: the thread's region began or
 * ended at pc (instructions from pc on are on the new side); VP_NEXT_RECORD: at the next
 * record. A mark whose pc is outside the record's block concerns a block without a record,
 * which ran after it. GAP, first in a buffer: the thread's records since its last buffer
 * were skipped (-vprofile_sample); the record before ran whole, the calls and returns since
 * are unknown, and the pc is 1 when the thread is inside a region now, else 0. */
#define VP_MARK (1ull << 63)
#define VP_MARK_KIND(w) (((w) >> 56) & 0x7f)
#define VP_MARK_PC(w) ((w) & ((1ull << 56) - 1))
enum { VP_MARK_LEFT, VP_MARK_START, VP_MARK_STOP, VP_MARK_GAP };
#define VP_NEXT_RECORD ((1ull << 56) - 1)

static inline uint64_t vp_mark(unsigned kind, uint64_t pc)
{
	return VP_MARK | (uint64_t)kind << 56 | (pc & VP_NEXT_RECORD);
}

/* A profiled instruction in one block's record, with what the decoder needs to make its
 * entries (kept here, next to the block's other instructions, rather than behind `insn`). */
struct vp_binsn {
	/* What the plug-in sees: the same for every translation of the instruction
	 * (deduplicated by pc and bytes). */
	const struct vprof_insn *insn;
	uint64_t pc;
	uint8_t nvalues;
	uint8_t addresses;   /* bit k: value k is an address (none when a REP string runs none) */
	uint16_t rcx_offset; /* a REP string's rcx before it (0: none) */
	uint16_t offset[VPROF_MAX_VALUES]; /* of each value in the record (0: not captured) */
	uint8_t shift[VPROF_MAX_VALUES];   /* the value is the raw one >> shift (ah: 8)... */
	uint8_t size[VPROF_MAX_VALUES];	   /* ... cut to this many bytes */
};

enum vp_end { VP_END_NONE, VP_END_CALL, VP_END_RET };

/* The layout of one translated block's record. */
struct vp_block {
	uint64_t start_pc, last_pc; /* the block's first and last instructions */
	uint64_t return_to;	    /* VP_END_CALL: the call's (the last instruction's) return
				     * address */
	uint32_t bytes;
	uint8_t end; /* enum vp_end */
	uint32_t ninsns;
	/* The merging thread's (vprof_merge.h): each instruction's record in the profile once
	 * looked up, apart from the layout the decoder reads (no cache line written on one
	 * side and read on the other). */
	void **stats;
	struct vp_binsn insns[];
};

/* The compiled specification (set before the client registers). */
extern struct vp_spec vp_spec;

/* The layout of the records starting with `word` (NULL: none; words count from 1, and the
 * first without a layout ends them). */
struct vp_block *vp_block_of(uint64_t word);

/* The app's file mappings when it ended (for source lines), set before the helper
 * finishes. */
struct vp_image {
	uint64_t start, end, offset;
	const char *path;
};
extern struct vp_image *vp_images;
extern size_t vp_nimages;

/* Driver thread: the JIT client, whose buffers go to h, one in `sample` of each thread
 * (vprof_knobs.sample), in the process image numbered `image` (vprof_knobs.image). 0, or
 * -1 with the reason. */
int vp_client_register(struct handoff *h, uint32_t image, uint32_t sample, char *err,
		       size_t errlen);

/* Where an entry came from: its instruction, and where the merging thread keeps the
 * instruction's profile record. */
struct vp_origin {
	uint64_t pc;
	const struct vprof_insn *insn;
	void **stat;
};

/* Helper: the records of a buffer into entries for the plug-in (vprof_decode.c), then, at
 * the end, every thread's last record. `process` gets the entries in batches, each with
 * its origin. */
typedef void (*vp_batch_fn)(const struct vprof_entry *entries, const struct vp_origin *from,
			    size_t n);
void vp_decode(const struct handoff_buffer *b, vp_batch_fn process);
void vp_decode_end(vp_batch_fn process);

#endif

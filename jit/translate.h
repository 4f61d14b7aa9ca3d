/* Translation of one basic block of app code into a fragment in the code cache. */
#ifndef JIT_TRANSLATE_H
#define JIT_TRANSLATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fragment.h"

struct jit_exit;

void translate_init(void);

/* Translates the block at app_pc (clients instrument it) and registers the fragment.
 * Flushes the whole cache when it is full. NULL only when memory is exhausted. */
struct fragment *translate_block(uint64_t app_pc);

/* translate_block for code that is not about to run (forked_code.h): NULL, and nothing
 * made, when the page at app_pc cannot be read. */
struct fragment *translate_block_ahead(uint64_t app_pc);

/* A translation of app_pc used once: not registered, and without the callouts of its first
 * instruction whose argument is in `exclude` (they already ran for this execution). */
struct fragment *translate_block_excluding(uint64_t app_pc, void *const *exclude, uint32_t n);

/* A once-only translation of at most max_insns instructions from app_pc. */
struct fragment *translate_block_limited(uint64_t app_pc, uint32_t max_insns);

/* Whether bi ends its block's control flow (a control transfer, a syscall, an instruction the
 * runtime does not run): nothing placed after it runs. */
struct block_insn;
bool translate_ends_block(const struct block_insn *bi);

/* Decodes the code at bytes[0, len), app pc `pc` on, into b's instructions after those it
 * has (their operands left for block_insn_ops), until b holds `max`, one does not decode,
 * or one ends the block: the bytes decoded. */
struct jit_block;
size_t translate_decode_run(const uint8_t *bytes, size_t len, uint64_t pc, struct jit_block *b,
			    size_t max);

/* The app changed its memory map at [addr, addr + len): forget which of those pages were
 * found readable (all of them when the range wraps or is huge). */
void translate_forget_readable_range(uint64_t addr, uint64_t len);

/* An exit stub for rec in memory of its own (not the code cache, which a reset reuses):
 * jumping there enters the dispatcher with rec. NULL when out of memory. */
uint8_t *translate_lasting_stub(const struct jit_exit *rec);

/* Points an exit stub made by this translator at another record (persist.h). */
void translate_stub_set_record(uint8_t *stub, const struct jit_exit *rec);
/* The length of an exit stub. */
size_t translate_stub_length(void);

/* Whether the app's code at pc is readable and equals bytes[0, len). */
bool translate_app_code_equals(uint64_t pc, const uint8_t *bytes, size_t len);

/* The app pc that a fragment's indirect entry (fragment.h) lets in. */
uint64_t translate_entry_pc(const uint8_t *entry);
/* Where a jump that knows its target is the entry's enters, past its check and with only
 * the app's %r11 to bring back (table_jump.h); NULL if the entry has no such place. */
const uint8_t *translate_entry_table_hit(const uint8_t *entry);

/* The shared exit record for indirect-branch misses (never linked). */
extern struct jit_exit translate_indirect_exit;

struct translate_stats {
	uint64_t blocks;
	uint64_t insns_decoded; /* for the fragments, whether they all ran or not */
	uint64_t links;
	uint64_t flushes;
	uint64_t partial_flushes; /* only the fragments holding some pcs */
	/* branches out of translations found to go where the flags are written first
	 * (flags_ahead.h), each time it was asked */
	uint64_t flags_dead_ahead;
};
extern struct translate_stats translate_stats;

#endif

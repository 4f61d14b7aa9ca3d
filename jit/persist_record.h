/* A kept translation (persist.h), as its file holds it and as the process keeps the ones it
 * made: this head, then its exits, instruction map, chain entries, constant slots, its
 * callouts, and the app bytes it was made from. Offsets are from the fragment's indirect
 * entry. */
#ifndef JIT_PERSIST_RECORD_H
#define JIT_PERSIST_RECORD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fragment.h"
#include "persist.h"

enum {
	RECORD_NO_FIELD = UINT32_MAX,
	RECORD_MAX_APP_BYTES = 1 << 16, /* (a chain's, and what it looked at ahead) */
};

struct record {
	uint32_t length; /* all of it, head included, a multiple of 8 */
	uint16_t exit_count;
	uint16_t insn_count;
	uint16_t entry_count;
	uint16_t slot_count;
	uint32_t size; /* of its code */
	uint64_t app_pc;
	uint64_t app_end;
	uint64_t code;
	uint32_t body_off;
	uint32_t mismatch_off;
	uint64_t tag; /* the instrumentation it was made with (instrument_keep_tag) */
	uint16_t callout_count;
	uint8_t rep_up; /* its REP string instruction's count slot, plus one (fragment.h) */
	uint8_t pad[5];
};

struct record_exit {
	uint64_t target;
	uint32_t stub_off;
	uint32_t field_off; /* RECORD_NO_FIELD: not a branch's (an inline stub: a syscall's, say) */
	uint32_t block_remaining;
	uint8_t kind;
	uint8_t falls_through;
	uint8_t pad[2];
};

/* What an EXIT_CALLOUT exit calls: a kept callout (instrument_kept_callout_number) with a
 * plain value as its argument. */
struct record_callout {
	uint64_t arg;
	uint64_t skip_to; /* its instruction is suppressed: execution goes on there (or 0) */
	uint32_t exit_index;
	uint32_t resume_off;
	uint32_t function; /* its number */
	uint32_t pad;
};

struct record_entry {
	uint64_t pc;
	uint32_t entry_off;
	uint32_t mismatch_off;
	uint32_t direct_off;
	uint32_t pad;
};

/* Whether [off, off + len) lies in the record's code. */
static inline bool record_holds(const struct record *r, uint32_t off, uint32_t len)
{
	return off <= r->size && len <= r->size - off;
}

static inline const struct record_exit *record_exits(const struct record *r)
{
	return (const struct record_exit *)(r + 1);
}
static inline const struct insn_map *record_insns(const struct record *r)
{
	return (const struct insn_map *)(record_exits(r) + r->exit_count);
}
static inline const struct record_entry *record_entries(const struct record *r)
{
	return (const struct record_entry *)(record_insns(r) + r->insn_count);
}
static inline const struct persist_slot *record_slots(const struct record *r)
{
	return (const struct persist_slot *)(record_entries(r) + r->entry_count);
}
static inline const struct record_callout *record_callouts(const struct record *r)
{
	return (const struct record_callout *)(record_slots(r) + r->slot_count);
}
static inline const uint8_t *record_bytes(const struct record *r)
{
	return (const uint8_t *)(record_callouts(r) + r->callout_count);
}

static inline size_t record_length(size_t exits, size_t insns, size_t entries, size_t nslots,
				   size_t callouts, size_t app_bytes)
{
	size_t n = sizeof(struct record) + exits * sizeof(struct record_exit) +
		   insns * sizeof(struct insn_map) + entries * sizeof(struct record_entry) +
		   nslots * sizeof(struct persist_slot) + callouts * sizeof(struct record_callout) +
		   app_bytes;
	return (n + 7) & ~(size_t)7;
}

/* The callout of exit i (an EXIT_CALLOUT), or NULL. */
static inline const struct record_callout *record_callout_of(const struct record *r, uint32_t i)
{
	for (uint16_t k = 0; k < r->callout_count; k++)
		if (record_callouts(r)[k].exit_index == i)
			return &record_callouts(r)[k];
	return NULL;
}

#endif

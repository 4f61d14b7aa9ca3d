/* Fragments (translated basic blocks), their exits, and the map from app pc to fragment.
 *
 * All fragment metadata lives in one pool that is dropped as a whole when the cache is
 * flushed; `fragment_generation()` changes at every flush so that code holding an exit
 * record across a flush can tell it is stale. */
#ifndef JIT_FRAGMENT_H
#define JIT_FRAGMENT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum exit_kind {
	EXIT_DIRECT,	  /* to a known app pc; may be linked */
	EXIT_INDIRECT,	  /* the app pc is in TB_IBL_TARGET */
	EXIT_SYSCALL,	  /* `syscall` at target - 2; continue at target */
	EXIT_BAD_FETCH,	  /* the app jumped where no instruction can be read */
	EXIT_BAD_OPCODE,  /* the bytes at target do not decode */
	EXIT_UNSUPPORTED, /* an instruction the runtime cannot run yet */
};

struct jit_exit {
	enum exit_kind kind;
	uint64_t target;	/* app pc */
	uint8_t *branch_field;	/* rel32 of the branch that leads to this exit's stub */
	bool linked;
};

struct fragment {
	uint64_t app_pc;
	uint64_t app_end; /* one past the last app byte translated */
	uint8_t *indirect_entry; /* where indirect branches enter: checks the target first */
	uint8_t *cache_pc;	 /* where direct branches enter */
	uint32_t cache_size;	 /* from indirect_entry to the end of the exit stubs */
	struct fragment *hash_next;
};

/* Bump allocation of metadata that lives until the next flush. NULL when out of memory. */
void *fragment_meta_alloc(size_t size);

struct fragment *fragment_lookup(uint64_t app_pc);
void fragment_insert(struct fragment *f);

/* True when some fragment was translated from app bytes in [start, end). */
bool fragment_range_translated(uint64_t start, uint64_t end);

/* Drops every fragment and all metadata; the code cache must be reset alongside. */
void fragment_flush_all(void);
uint64_t fragment_generation(void);
size_t fragment_count(void);

#endif

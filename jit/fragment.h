/* Fragments (translated basic blocks), their exits, and the map from app pc to fragment.
 *
 * Translations live in generations. Retiring a generation (fragment_retire_all) forgets
 * its fragments and unlinks their exits, but keeps their code and metadata: a thread that
 * is inside an old fragment finishes its block there and then leaves through an exit stub
 * into the dispatcher, which never links an old exit again. Reclaiming (fragment_reclaim)
 * frees everything and may only happen when no thread is inside a fragment. */
#ifndef JIT_FRAGMENT_H
#define JIT_FRAGMENT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum exit_kind {
	EXIT_DIRECT,	  /* to a known app pc; may be linked */
	EXIT_INDIRECT,	  /* the app pc is in TB_IBL_TARGET */
	EXIT_SYSCALL,	  /* `syscall` at target - 2; continue at target */
	EXIT_INT80,	  /* `int $0x80` at target - 2 (int80.h); continue at target */
	EXIT_BAD_FETCH,	  /* the app jumped where no instruction can be read */
	EXIT_BAD_OPCODE,  /* the bytes at target do not decode */
	EXIT_UNSUPPORTED, /* an instruction the runtime cannot run yet */
	EXIT_CALLOUT,	  /* a client's call into C; resume at `resume` */
	EXIT_FAULT,	  /* a fault of the app's, taken to the dispatcher (signals.h) */
};

struct jit_callout;
struct fragment;
/* An exit's record. A short process takes thousands (every exit of every fragment, kept
 * or made): what callouts add lives apart (jit_callout_exit), so that a record is 56 bytes
 * rather than 112 (a recorded /bin/true: 170 KiB less metadata to fault in). */
struct jit_exit {
	uint64_t target;       /* app pc */
	uint8_t *branch_field; /* rel32 of the branch that leads to this exit's stub */
	uint8_t *stub;	       /* the stub itself, where an unlinked branch points */
	uint64_t generation;
	/* A chained block's end inside `owner` (translate.c): branch_field is a fall-through
	 * site (x86_emit.h), linked while it falls through into the next block, unlinked while
	 * it jumps to the stub so that a thread leaves the cache at its block's end. */
	const struct fragment *owner;
	struct jit_exit *next_linkable; /* list of the generation's direct exits */
	uint32_t block_remaining;
	enum exit_kind kind : 8;
	bool linked;
	bool falls_through;
};

/* The record of an EXIT_CALLOUT (fragment_new_exit makes it so): the exit, then the call. */
struct jit_callout_exit {
	struct jit_exit exit;
	void (*callout)(const struct jit_callout *c);
	void *callout_arg;
	uint32_t budget_slots; /* bit per client slot the block's budget checks use */
	bool is_budget;	       /* the budget callout at block start */
	/* a budget callout before one iteration of a REP string instruction, a block of its
	 * own (translate.c, emit_rep_in_parts) */
	bool one_iteration;
	uint64_t skip_to; /* the instruction is suppressed: execution goes on here */
	uint8_t *resume;
};

static inline struct jit_callout_exit *jit_callout_exit_of(struct jit_exit *e)
{
	return (struct jit_callout_exit *)e; /* (its first member) */
}

/* Where each app instruction's translation starts in the fragment, for mapping a cache pc
 * back to the app (precise faults, signals). */
struct insn_map {
	uint16_t cache_off; /* from indirect_entry */
	uint16_t app_off;   /* from app_pc */
	bool rewritten;	    /* not a plain copy: %rcx may be borrowed (in TB_SCRATCH_RCX) */
	/* The block's instructions from this one to its end, as the instruction count took
	 * them at the block's start; INSN_COUNT_UNKNOWN for a REP string instruction (counted
	 * by its iterations as they go). */
	uint8_t counted_from;
	/* Of those, the ones in blocks after this one's, in its count group (count_groups.h). */
	uint8_t group_rest;
	/* A REP string instruction run in parts (a budget ends among its iterations): the
	 * app's %rcx is the part's plus the rest in TB_SCRATCH_REP. */
	bool rcx_rest;
	/* Registers that hold inserted code's values here, the app's being in TB_HELD_REGS,
	 * lowest register first (memory_marks.h, held marks). */
	uint16_t held_regs;
	/* A register the instruction's rewrite borrows, plus one (0: none): at a fault it
	 * holds the rewrite's value, the app's being in TB_SCRATCH_REG (an operand out of
	 * rel32 reach, addressed through it). */
	uint8_t borrowed_reg;
	/* The block's instruction count not added yet here (count_place.h): its update comes
	 * after this instruction, which may fault. */
	uint8_t count_pending;
};
#define INSN_COUNT_UNKNOWN 0xff

struct fragment {
	uint64_t app_pc;
	uint64_t app_end;	 /* one past the last app byte translated or looked at */
	uint8_t *indirect_entry; /* where indirect branches enter: checks the target first */
	uint8_t *mismatch_field; /* the rel32 of the entry's jump when the target is another */
	struct jit_exit *mismatch_link; /* (fragment_link_mismatch; NULL: never linked) */
	uint8_t *cache_pc;		/* where direct branches enter */
	uint32_t cache_size;		/* from indirect_entry to the end of the exit stubs */
	struct jit_exit **exits;	/* its direct exits, for unlinking just this fragment */
	uint32_t exit_count;
	uint32_t insn_count;
	struct insn_map *insns;
	/* An entry into a block in the middle of `inside`'s chain (translate.c): no code,
	 * exits or instructions of its own, and retired whenever `inside` is. */
	const struct fragment *inside;
	/* Its last instruction is a REP string instruction that counts: NULL, or how. */
	const struct rep_counts *rep;
};

/* What a REP string instruction's translation counts before it runs, for all the
 * iterations it is about to run (a part of them: translate.c): a fault among them takes
 * back those left, the hardware's %rcx, so that the count stays exact (instrument_rep_left).
 */
struct rep_counts {
	int8_t up;    /* client slot counting iterations up, or -1 */
	int8_t down;  /* client slot counting them down (the countdown's other stripe), or -1 */
	int8_t table; /* client slot holding a table counting them up at table_index, or -1 */
	uint32_t table_index;
	uint32_t budgets; /* bit per client slot of a budget that counts them down */
};

/* Bump allocation of metadata that lives until the next flush. NULL when out of memory. */
void *fragment_meta_alloc(size_t size);

struct fragment *fragment_lookup(uint64_t app_pc);
/* A table slot of 2^bits for pc: neighbouring pcs in neighbouring slots, and each 4 MiB of
 * code (a library, say) at an offset of its own. The translator looks up the blocks around
 * the one it translates, which then share cache lines, where a hash that scattered them
 * took a cache miss per lookup (5% of a short process's time under -log 0). */
size_t fragment_pc_slot(uint64_t pc, unsigned bits);
/* About n fragments are coming (kept ones: persist.h): the map grows for them at once
 * rather than doubling its way there. */
void fragment_expect(size_t n);
/* Makes f the current fragment of its app pc. False when out of memory. */
bool fragment_insert(struct fragment *f);

/* The fragment whose code holds cache address pc, current or retired; NULL if none. */
struct fragment *fragment_at_cache_pc(uint64_t pc);
/* Adds f to the cache-address index (every fragment, registered or not). */
void fragment_index(struct fragment *f);

/* The app pc of the instruction whose translation holds cache pc (NULL map: f's start). */
const struct insn_map *fragment_insn_at(const struct fragment *f, uint64_t cache_pc);

/* Sends the indirect branches that enter f for another target on to g's indirect entry
 * (both targets take the same slot of a thread's lookup table): a pair of hot targets of
 * one slot no longer evict each other, each miss a trip through the dispatcher. Not when
 * f's entry is linked already, out of rel32 reach, or when the entries g's leads through
 * are many or include f's. Retiring g unlinks it, as a direct exit into g. */
void fragment_link_mismatch(struct fragment *f, struct fragment *g);

/* Points e's branch back at its stub. */
void fragment_unlink_exit(struct jit_exit *e);
/* Whether f is the current fragment of its app pc. */
bool fragment_is_current(const struct fragment *f);
/* Points f's linked exits back at their stubs: a thread inside f leaves at its block's
 * end. */
void fragment_unlink(struct fragment *f);
/* The same for every fragment, current or retired: every thread leaves at its block's end
 * (links come back as the dispatcher sees the exits again). */
void fragment_unlink_all(void);

/* True when some fragment was translated from app bytes in [start, end), or depends on
 * bytes there (fragment_depends_on). */
bool fragment_range_translated(uint64_t start, uint64_t end);
/* A translation depends on app bytes in [start, end) outside its code (a constant branch
 * target): their pages count as translated until every fragment is retired. */
void fragment_depends_on(uint64_t start, uint64_t end);

/* A new exit record of the current generation (NULL when out of memory), a whole
 * jit_callout_exit for EXIT_CALLOUT. Direct exits are remembered so that retiring the
 * generation can unlink them. */
struct jit_exit *fragment_new_exit(enum exit_kind kind, uint64_t target);

/* Forgets every fragment and points every linked branch back at its stub. */
void fragment_retire_all(void);
/* Retires just the fragments translated from app code holding one of the pcs (sorted,
 * ascending): they are forgotten and every branch into them unlinked; their code and
 * metadata stay until the next reclaim. Returns how many were retired. */
size_t fragment_retire_holding(const uint64_t *pcs, size_t n);
/* Counts retirements, full or partial: when it moved, a fragment a thread is in may no
 * longer be current. */
uint64_t fragment_retirements(void);
/* Frees all metadata, current and retired; the code cache is reset alongside. */
void fragment_reclaim(void);
uint64_t fragment_generation(void);

#endif

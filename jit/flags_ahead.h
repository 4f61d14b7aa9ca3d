/* Whether the status flags are dead where the app's code goes: judged from the first
 * instructions there, through up to three unconditional jumps or calls on the way (a call
 * into a shared library goes through its PLT entry, a jump through a constant slot), and
 * back to where a call returns when the function called is a leaf that writes neither
 * memory nor the stack pointer before its `ret`.
 *
 * A block that ends in a call or a jump reads no flags itself, so without this every such
 * block counted as reading them all, and an update of the instruction count at its start
 * had to keep them: five instructions and forty bytes through %rax instead of one add (in
 * sqlite, 32 M of its 44 M such updates were blocks of one instruction, its calls and
 * PLT entries; the function they reach writes the flags in its first instructions).
 *
 * The answer relies on app code outside the translation's own range: the aligned 8-byte
 * words it read, each in a private mapping the app may not write, which the translation
 * then treats as constant slots (constant_slot.h): their pages count as translated code
 * (fragment_depends_on), and a kept translation is taken only where they still hold the
 * same values (persist.h). */
#ifndef JIT_FLAGS_AHEAD_H
#define JIT_FLAGS_AHEAD_H

#include <stdbool.h>
#include <stdint.h>

#include "persist.h"

enum { FLAGS_AHEAD_MAX_WORDS = 32 };

/* The app words the answers given for one translation rely on. */
struct flags_ahead_words {
	struct persist_slot word[FLAGS_AHEAD_MAX_WORDS];
	int count;
};

/* True when every status flag is written before any is read from app pc `pc` on, as far as
 * a few instructions there tell; the words relied on are added to `relied_on` (false, and
 * nothing added, when unsure: unreadable or writable code, no room left). */
bool flags_dead_ahead(uint64_t pc, struct flags_ahead_words *relied_on);

/* The same where bi, an unconditional jump or call, goes (false when it does not say:
 * through a register, or memory that is no constant slot). */
struct block_insn;
bool flags_dead_after_branch(const struct block_insn *bi, struct flags_ahead_words *relied_on);

#endif

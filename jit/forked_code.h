/* A forked child's translations, learned by its parent. What a shell's child runs between
 * its fork and its exec (the child's side of fork's return, redirections, the exec call)
 * the shell itself never runs: every child translated it anew, in a copy of the parent's
 * cache that the exec then threw away. Now each child tells its parent, through a pipe,
 * which blocks it translated; the parent translates them before its next fork, once, and
 * every later child finds them in the cache it inherits.
 *
 * Only where a translation is a function of the code alone (instrument_may_keep), and only
 * for children that keep their parent's cache (a recorded child retranslates without its
 * region's checks: it tells nothing). A block the parent cannot read is skipped. The pipe
 * never blocks anybody: what does not fit is dropped. */
#ifndef JIT_FORKED_CODE_H
#define JIT_FORKED_CODE_H

#include <stdint.h>

/* The parent, runtime lock held, before it forks: translates what its children told. */
void forked_code_before_fork(void);

/* The child of a fork (not a vfork), right after it: from now on notes its translations
 * for its parent. */
void forked_code_in_child(void);

/* translate_block made or took a fragment for app_pc. */
void forked_code_note(uint64_t app_pc);
/* An indirect branch to app_pc missed the thread's table: the parent enters it in its own,
 * which its next children inherit. */
void forked_code_note_indirect(uint64_t app_pc);

/* The child's cache is gone (reset or flushed): it has nothing of its parent's to add to. */
void forked_code_forget(void);

/* The child's image ends (exit, or an execve): tells its parent what it translated. */
void forked_code_report(void);

/* Blocks translated ahead for this process's children (-jit:stats). */
uint64_t forked_code_translated_ahead(void);

#endif

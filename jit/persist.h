/* Translations kept across processes (-jit:persist DIR): a process writes its code cache
 * and what describes its fragments to DIR at its exit (and before an execve), under a key
 * naming the program, the runtime's build and the configuration; the next process of the
 * same program maps that code where it was and takes a fragment from it, instead of
 * translating, once the app bytes it was made from are found unchanged. (A forked child's
 * own translations go to a second file: persist_after_fork.)
 *
 * The code is used where it was made, so the address space must come out the same: the
 * driver turns address-space randomisation off for the app (as gdb does), the runtime's
 * memory then falls in the same places, and a fragment's absolute addresses (app pcs, the
 * code cache's own, the runtime's through %gs) hold as they were. Only what differs per
 * process is made anew: the exit records (their stubs rewritten), links (every exit starts
 * unlinked), the fragment map. A translation is kept only when its clients' instrumentation
 * is a function of the code alone, under the tag they name it by (jit_client.keep_tag),
 * and taken only under the same tag; never one with a callout (its record names the
 * client's data). A translation that read other app memory (a constant slot:
 * constant_slot.h) is kept with the value it read, checked again. */
#ifndef JIT_PERSIST_H
#define JIT_PERSIST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fragment.h"

/* A block of a chain after its first (translate.c): where it is entered. */
struct persist_entry {
	uint64_t pc;
	uint8_t *indirect_entry;
	uint8_t *mismatch_field;
	uint8_t *cache_pc;
};

/* An 8-byte slot of app memory whose value a translation used as a branch target (or, a
 * tagged value, a table jump's dependency: table_jump_is_dependency), or, its address
 * tagged with PERSIST_SLOT_WORD, a word of app code whose bytes it relied on (of any value:
 * flags_ahead.h). */
#define PERSIST_SLOT_WORD (1ull << 63)
struct persist_slot {
	uint64_t slot;
	uint64_t value;
};

/* What a new translation is made of, for keeping it. */
struct persist_translation {
	struct fragment *f;
	struct jit_exit *const *exits; /* every exit made for it */
	size_t exit_count;
	const struct persist_entry *entries;
	size_t entry_count;
	const struct persist_slot *slots;
	size_t slot_count;
	const uint8_t *app_bytes; /* [f->app_pc, f->app_end) as translated */
};

/* At start-up, after the program's images are mapped and before its first translation:
 * maps the kept code of this program, if any. dir NULL: nothing is kept. `first`: the
 * process the user started (not one reached by following an execve), which says so when
 * the run's instrumentation lets nothing be kept. */
void persist_start(const char *dir, const char *exe_path, bool first);

/* The run's session directory (-jit:session, persist_dir.h), before persist_start: where
 * the programs the run's processes exec keep their translations (persist_start's dir in
 * those), never more than a few hundred MiB; the process that made it removes it at its
 * end (persist_end). NULL: none. */
void persist_session(const char *session_dir);

/* Whether the run has a session: the programs it execs run without address-space
 * randomisation (their layouts the same from one process to the next). */
bool persist_in_session(void);

/* This process ends (exit, or a signal's death): removes the session directory it made. */
void persist_end(void);

/* Whether new translations are to be kept (persist_note). */
bool persist_wanted(void);

/* A fragment for app_pc from the kept code, made current; NULL when there is none or it no
 * longer matches the app. Runtime lock held. */
struct fragment *persist_find(uint64_t app_pc);

/* A new translation, registered, to be kept. Runtime lock held. */
void persist_note(const struct persist_translation *pt);

/* Writes what is kept, when this process started the program and translated anything
 * since (at exit, and before an execve). Runtime lock held. */
void persist_save(void);

/* In a process just forked (not a vfork child): its own translations are kept apart from
 * its parent's, in a second file that the next run's processes read too (the code a
 * shell's child runs between its fork and its exec, which the shell itself never runs). */
void persist_after_fork(void);

/* The code cache is reused from its start: the kept code there is gone. */
void persist_cache_reset(void);

/* Fragments taken from kept code (for -jit:stats). */
uint64_t persist_fragments_found(void);

#endif

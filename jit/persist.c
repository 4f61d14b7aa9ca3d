#include "persist.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>

#include "block.h"
#include "code_cache.h"
#include "code_pages.h"
#include "config.h"
#include "constant_slot.h"
#include "instruction_count.h"
#include "messages.h"
#include "perf_map.h"
#include "persist_dir.h"
#include "persist_file.h"
#include "persist_record.h"
#include "rt_alloc.h"
#include "rt_format.h"
#include "rt_syscall.h"
#include "table_jump.h"
#include "threads.h"
#include "translate.h"
#include "x86_emit.h"

enum {
	INDEX_MIN_BITS = 10,
	MAX_KEPT_CODE = 64 << 20,
	/* A session directory (a run's temporary files, maybe in memory) takes no more. */
	MAX_SESSION_BYTES = 256 << 20,
};

/* A record of a file read at start, or of a translation made here. */
struct kept {
	const struct record *rec;
	bool own;	    /* made here (its record allocated alone), not read */
	struct fragment *f; /* current once found or made; NULL: not taken (yet) */
	bool dropped;	    /* its code is gone, or did not match the app */
};

static const char *dir;
static const char *session; /* the run's session directory (persist_session), or NULL */
static bool in_session;	    /* dir is that directory */
static uint64_t key;
static uint64_t family; /* the program's files whatever the builds (persist_dir.h) */
/* The process that writes: the one that started the program (segment 0), or a forked
 * child of it (segment 1: its translations go into arenas of their own, kept in a second
 * file, so that a shell's children stop translating the code they run between their fork
 * and their exec, which their parent never runs). */
static long owner;
static unsigned segment;
static bool dirty; /* translations made since the file was read or written */
static struct kept *kept;
static size_t kept_count, kept_cap;
/* The records read, by app pc: open addressing, the pc in the slot (index 0: empty). */
struct index_slot {
	uint64_t pc;
	size_t index; /* in kept, + 1 */
};
static struct index_slot *slots;
static unsigned slot_bits;
static uint64_t found;

static uint64_t hash_bytes(uint64_t h, const void *p, size_t n)
{
	const uint8_t *b = p;
	while (n--)
		h = (h ^ *b++) * 0x100000001b3ull;
	return h;
}

static uint64_t hash_file(uint64_t h, const char *file)
{
	struct stat st;
	if (rt_syscall2(SYS_stat, (long)file, (long)&st) != 0)
		return hash_bytes(h, file, strlen(file));
	uint64_t id[] = {st.st_dev, st.st_ino, (uint64_t)st.st_size, (uint64_t)st.st_mtim.tv_sec,
			 (uint64_t)st.st_mtim.tv_nsec};
	return hash_bytes(h, id, sizeof id);
}

/* The runtime's and the program's paths, the configuration and the CPU: what a program's
 * files have in common from one build of the runtime or of the program to the next. */
static uint64_t family_of(const char *exe_path)
{
	char self[4096];
	long n = rt_syscall3(SYS_readlink, (long)"/proc/self/exe", (long)self, sizeof self);
	uint64_t h = hash_bytes(0xcbf29ce484222325ull, self, n > 0 ? (size_t)n : 0);
	h = hash_bytes(h, exe_path, strlen(exe_path) + 1);
	uint8_t config[] = {jit_config.stats, jit_config.check_native_exec, jit_config.held_marks,
			    icount_is_striped()};
	h = hash_bytes(h, config, sizeof config);
	unsigned leaves[][2] = {{0, 0}, {1, 0}, {7, 0}, {0xd, 0}, {0xd, 1}};
	for (size_t i = 0; i < sizeof leaves / sizeof leaves[0]; i++) {
		uint32_t r[4] = {0};
		jit_cpuid(leaves[i][0], leaves[i][1], r);
		if (leaves[i][0] == 1)
			r[1] = 0; /* (the APIC id of the CPU it ran on) */
		h = hash_bytes(h, r, sizeof r);
	}
	return h;
}

/* What the code depends on besides the app bytes: the family, the runtime's build, the
 * program file's identity. */
static uint64_t key_of(const char *exe_path)
{
	uint32_t version = PERSIST_FILE_VERSION;
	uint64_t h = hash_bytes(family, &version, sizeof version);
	h = hash_file(h, "/proc/self/exe");
	return hash_file(h, exe_path);
}

/* Forgets the records made here whose fragments were retired since (code that the app
 * rewrites is translated again and again). Those read come first and stay where the index
 * has them. */
static void forget_retired(void)
{
	size_t n = 0;
	for (size_t i = 0; i < kept_count; i++) {
		struct kept *k = &kept[i];
		if (k->own && !fragment_is_current(k->f))
			rt_free((void *)k->rec);
		else
			kept[n++] = *k;
	}
	kept_count = n;
}

static bool remember(const struct record *rec, struct fragment *f)
{
	if (kept_count == kept_cap) {
		forget_retired();
		/* (grown while more than half full: compacting again and again would cost) */
		if (kept_count * 2 >= kept_cap) {
			size_t cap = kept_cap ? kept_cap * 2 : 4096;
			struct kept *n = rt_realloc(kept, cap * sizeof *n);
			if (!n)
				return false;
			kept = n;
			kept_cap = cap;
		}
	}
	kept[kept_count++] = (struct kept){rec, f != NULL, f, false};
	return true;
}

static bool index_records(void)
{
	unsigned bits = INDEX_MIN_BITS;
	while (((size_t)1 << bits) < kept_count * 2)
		bits++;
	slots = rt_calloc((size_t)1 << bits, sizeof *slots);
	if (!slots)
		return false;
	slot_bits = bits;
	size_t mask = ((size_t)1 << bits) - 1;
	for (size_t i = 0; i < kept_count; i++) {
		size_t s = fragment_pc_slot(kept[i].rec->app_pc, bits);
		while (slots[s].index)
			s = (s + 1) & mask;
		slots[s] = (struct index_slot){kept[i].rec->app_pc, i + 1};
	}
	return true;
}

static bool remember_read(const struct record *r, void *arg)
{
	(void)arg;
	return remember(r, NULL);
}

static void path_of(unsigned seg, char *out, size_t cap)
{
	rt_format(out, cap, "%s/%016lx-%016lx%s.jit", dir, family, key, seg ? ".forked" : "");
}

/* Adds the records of the segment's file, if it is of use. */
static void read_segment(unsigned seg)
{
	char file[4096];
	path_of(seg, file, sizeof file);
	long fd = rt_openat(AT_FDCWD, file, O_RDONLY | O_CLOEXEC, 0);
	if (fd < 0)
		return;
	/* (code from the file runs: only the user's own, which nobody else may write) */
	struct stat st;
	struct persist_file_id id = {key, seg};
	size_t before = kept_count;
	/* (on failure, what was adopted holds no record: new code goes after it) */
	if (rt_syscall2(SYS_fstat, fd, (long)&st) != 0 ||
	    st.st_uid != (uid_t)rt_syscall0(SYS_geteuid) || (st.st_mode & (S_IWGRP | S_IWOTH)) ||
	    !persist_file_read((int)fd, &id, remember_read, NULL))
		kept_count = before;
	rt_close((int)fd);
}

/* In a session, a program's first process keeps nothing: it leaves a mark, and the next
 * process of the program keeps its translations for the ones after it. Writing them costs
 * a process about a quarter of its time, for nothing where the run never runs the program
 * again (a build runs many programs once). */
static bool first_in_session(const char *session_dir)
{
	char mark[4096];
	rt_format(mark, sizeof mark, "%s/%016lx-%016lx.seen", session_dir, family, key);
	long fd = rt_openat(AT_FDCWD, mark, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (fd == -EEXIST)
		return false;
	if (fd >= 0)
		rt_close((int)fd);
	return true; /* (or the directory is gone: nothing to keep either) */
}

void persist_start(const char *kept_dir, const char *exe_path, bool first)
{
	if (!kept_dir)
		return;
	if (!instrument_may_keep()) {
		if (first)
			jit_message("warning: -jit:persist keeps nothing in this run: -mix, "
				    "-footprint, -debugtrace, -bbv, -vprofile, -control alarms, "
				    "-appdebug and the replay of threads or signals instrument "
				    "code by their state");
		return;
	}
	owner = rt_getpid();
	family = family_of(exe_path);
	key = key_of(exe_path);
	in_session = session && !strcmp(kept_dir, session);
	if (in_session && first_in_session(kept_dir))
		return;
	dir = kept_dir;
	read_segment(0);
	read_segment(1);
	if (kept_count && !index_records())
		kept_count = 0;
	size_t fragments = 0; /* (and their chain entries, each a fragment of the map too) */
	for (size_t i = 0; i < kept_count; i++)
		fragments += 1 + kept[i].rec->entry_count;
	fragment_expect(fragments);
}

void persist_after_fork(void)
{
	if (!dir)
		return;
	owner = rt_getpid();
	segment = 1;
	dirty = false;
	code_cache_set_segment(1);
}

bool persist_wanted(void)
{
	return dir != NULL;
}

/* Links e (of a fragment just taken) as a new translation's: a block end falls through,
 * a branch goes straight to `to`, current, when in reach. */
static void link_exit(struct jit_exit *e, const struct fragment *to)
{
	if (e->falls_through)
		patch_fall_through(e->branch_field, NULL);
	else if (to && rel32_reaches(e->branch_field, to->cache_pc))
		patch_rel32(e->branch_field, to->cache_pc);
	else
		return;
	e->linked = true;
}

/* Makes the kept fragment current, as translate.c's try_translate does a new one. */
static struct fragment *take(struct kept *k)
{
	const struct record *r = k->rec;
	k->dropped = true; /* (tried once, whatever comes of it) */
	size_t app_bytes = r->app_end - r->app_pc;
	if ((r->entry_count && code_pages_may_change(r->app_pc, r->app_end)) ||
	    !translate_app_code_equals(r->app_pc, record_bytes(r), app_bytes))
		return NULL;
	for (uint16_t i = 0; i < r->slot_count; i++) {
		const struct persist_slot *s = &record_slots(r)[i];
		bool holds = s->slot & PERSIST_SLOT_WORD
				 ? constant_slot_still(s->slot & ~PERSIST_SLOT_WORD, s->value)
			     : table_jump_is_dependency(s->value)
				 ? table_jump_adopt(s->slot, s->value)
				 : constant_slot_still(s->slot, s->value);
		if (!holds)
			return NULL;
	}
	struct fragment *f = fragment_meta_alloc(sizeof *f);
	struct jit_exit **exits = fragment_meta_alloc(sizeof *exits * ((size_t)r->exit_count + 1));
	struct rep_counts *rep = r->rep_up ? fragment_meta_alloc(sizeof *rep) : NULL;
	if (!f || !exits || (r->rep_up && !rep))
		return NULL;
	if (rep)
		*rep = (struct rep_counts){(int8_t)(r->rep_up - 1), -1, -1, 0, 0};
	uint8_t *code = (uint8_t *)r->code;
	uint32_t branches = 0;
	for (uint16_t i = 0; i < r->exit_count; i++) {
		const struct record_exit *e = &record_exits(r)[i];
		struct jit_exit *rec = fragment_new_exit((enum exit_kind)e->kind, e->target);
		if (!rec)
			return NULL;
		rec->stub = code + e->stub_off;
		rec->falls_through = e->falls_through;
		rec->owner = e->falls_through ? f : NULL;
		rec->block_remaining = e->block_remaining;
		if (e->kind == EXIT_CALLOUT) {
			const struct record_callout *rc = record_callout_of(r, i);
			struct jit_callout_exit *call = jit_callout_exit_of(rec);
			call->callout = rc ? instrument_kept_callout(rc->function) : NULL;
			if (!call->callout)
				return NULL; /* (checked when read: another client set now) */
			call->callout_arg = (void *)rc->arg;
			call->skip_to = rc->skip_to;
			call->resume = code + rc->resume_off;
		}
		translate_stub_set_record(rec->stub, rec);
		if (e->field_off != RECORD_NO_FIELD) {
			rec->branch_field = code + e->field_off;
			exits[branches++] = rec;
		}
	}
	*f = (struct fragment){
	    .app_pc = r->app_pc,
	    .app_end = r->app_end,
	    .indirect_entry = code,
	    .mismatch_field = code + r->mismatch_off,
	    .cache_pc = code + r->body_off,
	    .cache_size = r->size,
	    .exits = exits,
	    .exit_count = branches,
	    .insn_count = r->insn_count,
	    .insns = (struct insn_map *)record_insns(r), /* (read-only: kept as the record is) */
	    .rep = rep,
	};
	fragment_index(f);
	perf_map_translated(f);
	code_pages_translated(f->app_pc, f->app_end);
	/* (as for a new translation: a write between the check and the protection) */
	if (!translate_app_code_equals(r->app_pc, record_bytes(r), app_bytes) ||
	    !fragment_insert(f))
		return NULL;
	for (uint16_t i = 0; i < r->entry_count; i++) {
		const struct record_entry *e = &record_entries(r)[i];
		if (fragment_lookup(e->pc))
			continue;
		struct fragment *entry = fragment_meta_alloc(sizeof *entry);
		if (!entry)
			break;
		*entry = (struct fragment){
		    .app_pc = e->pc,
		    .app_end = f->app_end,
		    .indirect_entry = code + e->entry_off,
		    .mismatch_field = code + e->mismatch_off,
		    .cache_pc = code + e->direct_off,
		    .inside = f,
		};
		if (!fragment_insert(entry))
			break;
	}
	k->f = f;
	k->dropped = false;
	found++;
	return f;
}

/* The record for app_pc made under `tag` and not tried yet, if any. */
static struct kept *untried(uint64_t app_pc, uint64_t tag)
{
	size_t mask = ((size_t)1 << slot_bits) - 1;
	for (size_t s = fragment_pc_slot(app_pc, slot_bits); slots[s].index; s = (s + 1) & mask) {
		struct kept *k = &kept[slots[s].index - 1];
		if (slots[s].pc == app_pc && k->rec->tag == tag)
			return k->f || k->dropped ? NULL : k;
	}
	return NULL;
}

/* Takes app_pc's fragment and, ahead, those its direct exits lead to, and theirs: each
 * trip through the dispatcher for a fragment not taken yet would cost about what taking
 * it costs. Each exit is linked as it is followed. */
struct fragment *persist_find(uint64_t app_pc)
{
	enum { AHEAD = 512 };
	uint64_t tag;
	if (!slots || !instrument_keep_tag(&tag))
		return NULL;
	struct kept *first = untried(app_pc, tag);
	struct fragment *f = first ? take(first) : NULL;
	if (!f)
		return NULL;
	struct fragment *taken[AHEAD];
	size_t n = 0, followed = 0;
	taken[n++] = f;
	bool may_link = threads_may_link();
	while (followed < n) {
		const struct fragment *g = taken[followed++];
		for (uint32_t i = 0; i < g->exit_count; i++) {
			struct jit_exit *e = g->exits[i];
			struct fragment *to = e->falls_through ? NULL : fragment_lookup(e->target);
			struct kept *k =
			    e->falls_through || to || n == AHEAD ? NULL : untried(e->target, tag);
			if (k && (to = take(k)))
				taken[n++] = to;
			if (may_link)
				link_exit(e, to);
		}
	}
	return f;
}

void persist_note(const struct persist_translation *pt)
{
	const struct fragment *f = pt->f;
	size_t app_bytes = f->app_end - f->app_pc;
	size_t callouts = 0;
	for (size_t i = 0; i < pt->exit_count; i++)
		callouts += pt->exits[i]->kind == EXIT_CALLOUT;
	size_t len = record_length(pt->exit_count, f->insn_count, pt->entry_count, pt->slot_count,
				   callouts, app_bytes);
	uint64_t tag;
	if (app_bytes > RECORD_MAX_APP_BYTES || pt->exit_count > UINT16_MAX ||
	    !instrument_keep_tag(&tag))
		return;
	struct record *r = rt_calloc(1, len);
	if (!r)
		return;
	const uint8_t *code = f->indirect_entry;
	*r = (struct record){
	    .length = (uint32_t)len,
	    .exit_count = (uint16_t)pt->exit_count,
	    .insn_count = (uint16_t)f->insn_count,
	    .entry_count = (uint16_t)pt->entry_count,
	    .slot_count = (uint16_t)pt->slot_count,
	    .size = f->cache_size,
	    .app_pc = f->app_pc,
	    .app_end = f->app_end,
	    .code = (uint64_t)code,
	    .body_off = (uint32_t)(f->cache_pc - code),
	    .mismatch_off = (uint32_t)(f->mismatch_field - code),
	    .tag = tag,
	    .callout_count = (uint16_t)callouts,
	    .rep_up = f->rep ? (uint8_t)(f->rep->up + 1) : 0,
	};
	struct record_exit *exits = (struct record_exit *)record_exits(r);
	struct record_callout *calls = (struct record_callout *)record_callouts(r);
	for (size_t i = 0; i < pt->exit_count; i++) {
		struct jit_exit *e = pt->exits[i];
		if (e->kind == EXIT_CALLOUT) {
			const struct jit_callout_exit *call = jit_callout_exit_of(e);
			*calls++ = (struct record_callout){
			    .arg = (uint64_t)call->callout_arg,
			    .skip_to = call->skip_to,
			    .exit_index = (uint32_t)i,
			    .resume_off = (uint32_t)(call->resume - code),
			    .function = (uint32_t)instrument_kept_callout_number(call->callout),
			};
		}
		exits[i] = (struct record_exit){
		    .target = e->target,
		    .stub_off = (uint32_t)(e->stub - code),
		    .field_off =
			e->branch_field ? (uint32_t)(e->branch_field - code) : RECORD_NO_FIELD,
		    .block_remaining = e->block_remaining,
		    .kind = (uint8_t)e->kind,
		    .falls_through = e->falls_through,
		};
	}
	memcpy((void *)record_insns(r), f->insns, sizeof *f->insns * f->insn_count);
	struct record_entry *entries = (struct record_entry *)record_entries(r);
	for (size_t i = 0; i < pt->entry_count; i++) {
		const struct persist_entry *e = &pt->entries[i];
		entries[i] = (struct record_entry){
		    .pc = e->pc,
		    .entry_off = (uint32_t)(e->indirect_entry - code),
		    .mismatch_off = (uint32_t)(e->mismatch_field - code),
		    .direct_off = (uint32_t)(e->cache_pc - code),
		};
	}
	memcpy((void *)record_slots(r), pt->slots, sizeof *pt->slots * pt->slot_count);
	memcpy((void *)record_bytes(r), pt->app_bytes, app_bytes); /* (after the callouts) */
	if (!remember(r, pt->f)) {
		rt_free(r);
		return;
	}
	dirty = true;
}

static void unlink_mismatch(const struct fragment *f)
{
	if (f && f->mismatch_link && f->mismatch_link->linked)
		fragment_unlink_exit(f->mismatch_link);
}

/* Whether k is written, its code then unlinked as the file has it: every exit and entry
 * as it was made, before the dispatcher linked anything. */
static bool to_write(const struct kept *k)
{
	if (!code_cache_in_segment(k->rec->code, segment))
		return false;
	if (!k->f)
		return !k->dropped;
	if (!fragment_is_current(k->f))
		return false;
	fragment_unlink(k->f);
	unlink_mismatch(k->f);
	for (uint16_t i = 0; i < k->rec->entry_count; i++) {
		const struct fragment *g = fragment_lookup(record_entries(k->rec)[i].pc);
		if (g && g->inside == k->f)
			unlink_mismatch(g);
	}
	return true;
}

/* Writes the records of the fragments still current and those not taken yet. */
static bool write_file(int fd)
{
	const struct record **records = rt_calloc(kept_count + 1, sizeof *records);
	if (!records)
		return false;
	size_t n = 0;
	for (size_t i = 0; i < kept_count; i++)
		if (to_write(&kept[i]))
			records[n++] = kept[i].rec;
	struct persist_file_id id = {key, segment};
	bool ok = persist_file_write(fd, &id, records, n);
	rt_free(records);
	return ok;
}

void persist_save(void)
{
	if (!dir || !dirty || rt_getpid() != owner)
		return;
	dirty = false;
	char path[4096], tmp[sizeof path + 32];
	path_of(segment, path, sizeof path);
	/* Code once written stays in the file, used or not (it cannot move), so that runs that
	 * each translate something new make it grow: past MAX_KEPT_CODE the file goes, and the
	 * next process starts over with what it translates. */
	if (code_cache_segment_bytes(segment) > MAX_KEPT_CODE) {
		rt_syscall3(SYS_unlinkat, AT_FDCWD, (long)path, 0);
		return;
	}
	if (in_session && persist_dir_bytes(dir) > MAX_SESSION_BYTES)
		return;
	rt_format(tmp, sizeof tmp, "%s.%ld.tmp", path, owner);
	long fd = rt_openat(AT_FDCWD, tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		return;
	bool ok = write_file((int)fd);
	ok &= rt_close((int)fd) == 0;
	/* (a reader has the old file or the new one whole, never a part) */
	if (!ok || rt_syscall4(SYS_renameat, AT_FDCWD, (long)tmp, AT_FDCWD, (long)path) != 0)
		rt_syscall3(SYS_unlinkat, AT_FDCWD, (long)tmp, 0);
	persist_dir_sweep(dir, family, key);
}

void persist_session(const char *session_dir)
{
	session = session_dir;
}

bool persist_in_session(void)
{
	return session != NULL;
}

void persist_end(void)
{
	if (session && persist_session_owner(session) == rt_getpid())
		persist_dir_remove(session);
}

void persist_cache_reset(void)
{
	for (size_t i = 0; i < kept_count; i++)
		if (kept[i].own)
			rt_free((void *)kept[i].rec);
	kept_count = 0;
	rt_free(slots);
	slots = NULL;
}

uint64_t persist_fragments_found(void)
{
	return found;
}

#include "persist_file.h"

#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "block.h"
#include "code_cache.h"
#include "rt_alloc.h"
#include "rt_crc32c.h"
#include "rt_syscall.h"
#include "thread_block.h"
#include "translate.h"
#include "x86_emit.h"

enum {
	MAX_FILE_ARENAS = 64,
	PAGE_SIZE = 4096,
};
static const char magic[8] = "JITKEPT";

struct file_header {
	char magic[8];
	uint32_t version;
	uint32_t arena_count;
	uint64_t key;
	uint64_t records_offset; /* a multiple of the page size */
	uint64_t records_bytes;
	uint32_t records_crc;
	uint32_t pad;
};

struct file_arena {
	uint64_t base;
	uint64_t used;
	uint32_t crc;
	uint32_t pad;
};

/* A record read from a file, checked against the file's arenas before anything in it is
 * used (a damaged file must cost its use, nothing more). */
static bool record_sane(const struct record *r, size_t room, const struct file_arena *arenas,
			uint32_t arena_count, const bool *mapped)
{
	if (room < sizeof *r || r->length > room || r->length % 8 || r->app_end <= r->app_pc ||
	    r->app_end - r->app_pc > RECORD_MAX_APP_BYTES ||
	    r->length != record_length(r->exit_count, r->insn_count, r->entry_count, r->slot_count,
				       r->callout_count, r->app_end - r->app_pc) ||
	    !record_holds(r, r->body_off, 1) || !record_holds(r, r->mismatch_off, 4) ||
	    r->rep_up > TB_CLIENT_SLOT_COUNT || (r->rep_up && !r->insn_count))
		return false;
	bool in_arena = false;
	for (uint32_t i = 0; i < arena_count; i++)
		in_arena |= mapped[i] && r->code >= arenas[i].base &&
			    r->code - arenas[i].base <= arenas[i].used &&
			    r->size <= arenas[i].used - (r->code - arenas[i].base);
	if (!in_arena)
		return false;
	for (uint16_t i = 0; i < r->callout_count; i++) {
		const struct record_callout *c = &record_callouts(r)[i];
		if (c->exit_index >= r->exit_count ||
		    record_exits(r)[c->exit_index].kind != EXIT_CALLOUT ||
		    record_callout_of(r, c->exit_index) != c ||
		    !record_holds(r, c->resume_off, 1) || !instrument_kept_callout(c->function))
			return false;
	}
	for (uint16_t i = 0; i < r->exit_count; i++) {
		const struct record_exit *e = &record_exits(r)[i];
		uint32_t field_length = e->falls_through ? FALL_THROUGH_SITE_LENGTH : 4;
		if (e->kind > EXIT_FAULT || (e->kind == EXIT_CALLOUT && !record_callout_of(r, i)) ||
		    !record_holds(r, e->stub_off, (uint32_t)translate_stub_length()) ||
		    (e->field_off != RECORD_NO_FIELD &&
		     !record_holds(r, e->field_off, field_length)))
			return false;
	}
	for (uint16_t i = 0; i < r->insn_count; i++)
		if (!record_holds(r, record_insns(r)[i].cache_off, 1))
			return false;
	for (uint16_t i = 0; i < r->entry_count; i++) {
		const struct record_entry *e = &record_entries(r)[i];
		if (!record_holds(r, e->entry_off, 1) || !record_holds(r, e->mismatch_off, 4) ||
		    !record_holds(r, e->direct_off, 1))
			return false;
	}
	return true;
}

static bool read_all(int fd, void *buf, size_t len)
{
	uint8_t *p = buf;
	while (len) {
		long n = rt_read(fd, p, len);
		if (n <= 0)
			return false;
		p += n;
		len -= (size_t)n;
	}
	return true;
}

static bool skip(int fd, uint64_t len)
{
	return rt_syscall3(SYS_lseek, fd, (long)len, SEEK_CUR) >= 0;
}

/* The records, mapped read-only: NULL when the file does not hold them whole or they do
 * not check. */
static const uint8_t *map_records(int fd, const struct file_header *h)
{
	struct stat st;
	if (!h->records_bytes || h->records_offset % PAGE_SIZE ||
	    rt_syscall2(SYS_fstat, fd, (long)&st) != 0 ||
	    (uint64_t)st.st_size < h->records_offset ||
	    (uint64_t)st.st_size - h->records_offset < h->records_bytes)
		return NULL;
	long at =
	    rt_mmap(NULL, h->records_bytes, PROT_READ, MAP_PRIVATE, fd, (off_t)h->records_offset);
	if (rt_is_error(at))
		return NULL;
	if (rt_crc32c(0, (const void *)at, h->records_bytes) != h->records_crc) {
		rt_munmap((void *)at, h->records_bytes);
		return NULL;
	}
	return (const uint8_t *)at;
}

bool persist_file_read(int fd, const struct persist_file_id *id,
		       bool (*each)(const struct record *r, void *arg), void *arg)
{
	struct file_header h;
	struct file_arena arenas[MAX_FILE_ARENAS];
	bool mapped[MAX_FILE_ARENAS] = {false};
	if (!read_all(fd, &h, sizeof h) || memcmp(h.magic, magic, sizeof magic) ||
	    h.version != PERSIST_FILE_VERSION || h.key != id->key ||
	    h.arena_count > MAX_FILE_ARENAS || h.records_bytes > (1ull << 30) ||
	    !read_all(fd, arenas, h.arena_count * sizeof *arenas))
		return false;
	const uint8_t *records = map_records(fd, &h);
	if (!records)
		return false;
	for (uint32_t i = 0; i < h.arena_count; i++) {
		if (arenas[i].used > code_cache_arena_size())
			return false;
		uint8_t *at = code_cache_adopt(arenas[i].base, arenas[i].used, id->segment);
		/* (an arena whose bytes do not check stays, as room for new code) */
		mapped[i] = at && read_all(fd, at, arenas[i].used) &&
			    rt_crc32c(0, at, arenas[i].used) == arenas[i].crc;
		if (!at && !skip(fd, arenas[i].used))
			return false;
	}
	for (uint64_t at = 0; at < h.records_bytes;) {
		const struct record *r = (const struct record *)(records + at);
		if (!record_sane(r, h.records_bytes - at, arenas, h.arena_count, mapped))
			break; /* the rest cannot be trusted to start where it seems to */
		at += r->length;
		if (!each(r, arg))
			return false;
	}
	return true;
}

/* The records, gathered into writes of up to 1 MiB: a program's thousands of records
 * written one by one cost as many system calls at every save. */
static bool write_records(int fd, const struct record *const *records, size_t n_records)
{
	enum { BATCH = 1 << 20 };
	uint8_t *buf = rt_alloc(BATCH);
	size_t used = 0;
	bool ok = true;
	for (size_t i = 0; ok && i < n_records; i++) {
		size_t len = records[i]->length;
		if (buf && used + len > BATCH) {
			ok = rt_write_all(fd, buf, used) >= 0;
			used = 0;
		}
		if (buf && len <= BATCH) {
			memcpy(buf + used, records[i], len);
			used += len;
		} else if (ok) {
			ok = rt_write_all(fd, records[i], len) >= 0;
		}
	}
	ok = ok && (!used || rt_write_all(fd, buf, used) >= 0);
	rt_free(buf);
	return ok;
}

bool persist_file_write(int fd, const struct persist_file_id *id,
			const struct record *const *records, size_t n_records)
{
	struct code_cache_span spans[MAX_FILE_ARENAS];
	size_t n = code_cache_spans(spans, MAX_FILE_ARENAS, id->segment);
	struct file_header h = {
	    .version = PERSIST_FILE_VERSION, .arena_count = (uint32_t)n, .key = id->key};
	memcpy(h.magic, magic, sizeof magic);
	for (size_t i = 0; i < n_records; i++) {
		h.records_crc = rt_crc32c(h.records_crc, records[i], records[i]->length);
		h.records_bytes += records[i]->length;
	}
	struct file_arena arenas[MAX_FILE_ARENAS];
	uint64_t end = sizeof h + n * sizeof *arenas;
	for (size_t i = 0; i < n; i++) {
		arenas[i] = (struct file_arena){(uint64_t)spans[i].base, spans[i].used,
						rt_crc32c(0, spans[i].base, spans[i].used), 0};
		end += spans[i].used;
	}
	h.records_offset = (end + PAGE_SIZE - 1) & ~(uint64_t)(PAGE_SIZE - 1);
	static const uint8_t zeros[PAGE_SIZE];
	bool ok = rt_write_all(fd, &h, sizeof h) >= 0 &&
		  rt_write_all(fd, arenas, n * sizeof *arenas) >= 0;
	for (size_t i = 0; ok && i < n; i++)
		ok = rt_write_all(fd, spans[i].base, spans[i].used) >= 0;
	ok = ok && rt_write_all(fd, zeros, h.records_offset - end) >= 0;
	return ok && write_records(fd, records, n_records);
}

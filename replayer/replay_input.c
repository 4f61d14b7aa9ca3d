#include "replay_input.h"

#include "jit_app.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>

enum { PAGE = 4096 };

static int fail(char *err, size_t errlen, int code, const char *what, const char *detail)
{
	snprintf(err, errlen, "%s%s%s", what, detail ? ": " : "", detail ? detail : "");
	return code;
}

static void copy_regs(struct replay_regs *out, const struct pinball_regs *in)
{
	memcpy(out->gpr, in->gpr, sizeof out->gpr);
	out->rip = in->rip;
	out->rflags = in->rflags;
	out->fs_base = in->fs_base;
	out->xsave_len = in->xsave_len;
	out->xsave = malloc(in->xsave_len ? in->xsave_len : 1);
	if (out->xsave)
		memcpy(out->xsave, in->xsave, in->xsave_len);
}

/* The one thread of a part ("threads" or "end"). */
static int read_thread(const struct pinball_reader *r, const char *part, uint32_t *tid,
		       uint64_t *icount, struct replay_regs *regs, char *err, size_t errlen)
{
	char perr[PINBALL_ERR_MAX];
	struct pinball_cursor *c = pinball_cursor_open(r, part, perr);
	if (!c)
		return fail(err, errlen, 2, perr, NULL);
	struct pinball_thread t;
	int got = pinball_next_thread(c, &t);
	if (got == 1) {
		*tid = t.tid;
		*icount = t.icount;
		copy_regs(regs, &t.regs);
		regs->signal_mask = t.signal_mask;
		if (pinball_next_thread(c, &t) != 0)
			got = -2;
	}
	int rc = 0;
	if (got == -1)
		rc = fail(err, errlen, 2, pinball_cursor_error(c), NULL);
	else if (got == 0)
		rc = fail(err, errlen, 2, "the pinball has no thread in its part", part);
	else if (got == -2)
		rc = fail(err, errlen, 2,
			  "the pinball has several threads; replaying them is not supported yet",
			  NULL);
	pinball_cursor_close(c);
	return rc;
}

/* Reserves every recorded mapping at its address, writable until the pages are in. */
static int map_memory(const struct pinball_reader *r, struct replay_input *in, char *err,
		      size_t errlen)
{
	char perr[PINBALL_ERR_MAX];
	struct pinball_cursor *c = pinball_cursor_open(r, "memmap", perr);
	if (!c)
		return fail(err, errlen, 2, perr, NULL);
	struct pinball_map_entry m;
	int got, rc = 0;
	while (rc == 0 && (got = pinball_next_map(c, &m)) == 1) {
		if (m.path && !strcmp(m.path, "[brk]")) {
			in->has_brk = true;
			in->brk_start = m.start;
			in->brk_current = m.end;
			in->brk_mapped_end = m.start + m.offset;
			/* The rest of the break's reservation, claimed now like every range. */
			uint64_t from = in->brk_mapped_end,
				 to = m.start + jit_app_brk_reserve_size();
			void *at =
			    mmap((void *)from, to - from, PROT_NONE,
				 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED_NOREPLACE,
				 -1, 0);
			if (at == MAP_FAILED || (uint64_t)at != from)
				rc = fail(err, errlen, 3, "the recorded program break is in use",
					  NULL);
			else if (in->nowned < REPLAY_MAX_OWNED) {
				in->owned[in->nowned][0] = from;
				in->owned[in->nowned][1] = to;
				in->nowned++;
			}
			continue;
		}
		if (m.end <= m.start || (m.start | m.end) % PAGE)
			rc = fail(err, errlen, 2, "the pinball's memory map has a bad range", NULL);
		void *at = rc ? MAP_FAILED
			      : mmap((void *)m.start, m.end - m.start, PROT_READ | PROT_WRITE,
				     MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
		if (!rc && at != MAP_FAILED && in->nowned < REPLAY_MAX_OWNED) {
			in->owned[in->nowned][0] = m.start;
			in->owned[in->nowned][1] = m.end;
			in->nowned++;
		}
		if (!rc && (at == MAP_FAILED || (uint64_t)at != m.start)) {
			char what[160];
			snprintf(what, sizeof what,
				 "the recorded range 0x%lx-0x%lx is in use by the replayer",
				 m.start, m.end);
			rc = fail(err, errlen, errno == EEXIST ? 3 : 2, what, NULL);
		}
	}
	if (!rc && got == -1)
		rc = fail(err, errlen, 2, pinball_cursor_error(c), NULL);
	pinball_cursor_close(c);
	return rc;
}

static int fill_pages(const struct pinball_reader *r, char *err, size_t errlen)
{
	char perr[PINBALL_ERR_MAX];
	struct pinball_cursor *c = pinball_cursor_open(r, "pages", perr);
	if (!c)
		return fail(err, errlen, 2, perr, NULL);
	struct pinball_page p;
	int got;
	while ((got = pinball_next_page(c, &p)) == 1)
		if (p.data) /* zero pages are zero already in a fresh mapping */
			memcpy((void *)p.addr, p.data, PAGE);
	int rc = got == -1 ? fail(err, errlen, 2, pinball_cursor_error(c), NULL) : 0;
	pinball_cursor_close(c);
	return rc;
}

/* The recorded protections, once the pages are written. */
static int protect_memory(const struct pinball_reader *r, char *err, size_t errlen)
{
	char perr[PINBALL_ERR_MAX];
	struct pinball_cursor *c = pinball_cursor_open(r, "memmap", perr);
	if (!c)
		return fail(err, errlen, 2, perr, NULL);
	struct pinball_map_entry m;
	int got;
	while ((got = pinball_next_map(c, &m)) == 1)
		if (!m.path || strcmp(m.path, "[brk]"))
			mprotect((void *)m.start, m.end - m.start, (int)m.prot);
	int rc = got == -1 ? fail(err, errlen, 2, pinball_cursor_error(c), NULL) : 0;
	pinball_cursor_close(c);
	return rc;
}

static bool copy_event(struct replay_event *out, const struct pinball_event *e)
{
	memset(out, 0, sizeof *out);
	out->kind = e->kind;
	out->icount = e->icount;
	if (e->kind == PINBALL_EV_SYSCALL) {
		out->nr = e->syscall.nr;
		memcpy(out->args, e->syscall.args, sizeof out->args);
		out->result = e->syscall.result;
		out->nwrites = e->syscall.nwrites;
		out->writes = calloc(e->syscall.nwrites + 1, sizeof *out->writes);
		if (!out->writes)
			return false;
		for (size_t i = 0; i < e->syscall.nwrites; i++) {
			uint8_t *data = malloc(e->syscall.writes[i].len + 1);
			if (!data)
				return false;
			memcpy(data, e->syscall.writes[i].data, e->syscall.writes[i].len);
			out->writes[i] = (struct pinball_mem_write){e->syscall.writes[i].addr, data,
								    e->syscall.writes[i].len};
		}
		out->echo = e->syscall.echo;
		out->output_len = e->syscall.output_len;
		out->output = malloc(out->output_len + 1);
		if (!out->output)
			return false;
		if (out->output_len)
			memcpy(out->output, e->syscall.output, out->output_len);
	} else if (e->kind == PINBALL_EV_SIGNAL) {
		out->signal.signo = e->signal.signo;
		out->signal.len = e->signal.siginfo_len < sizeof out->signal.bytes
				      ? e->signal.siginfo_len
				      : sizeof out->signal.bytes;
		memcpy(out->signal.bytes, e->signal.siginfo, out->signal.len);
	} else if (e->kind == PINBALL_EV_INSN) {
		out->insn.kind = e->insn.kind;
		out->insn.dest_reg = e->insn.dest_reg;
		out->insn.in_eax = e->insn.in_eax;
		out->insn.in_ecx = e->insn.in_ecx;
		out->insn.rax = e->insn.rax;
		out->insn.rbx = e->insn.rbx;
		out->insn.rcx = e->insn.rcx;
		out->insn.rdx = e->insn.rdx;
		out->insn.value = e->insn.value;
		out->insn.cf = e->insn.cf;
	}
	return true;
}

static int read_events(const struct pinball_reader *r, struct replay_input *in, char *err,
		       size_t errlen)
{
	char part[64], perr[PINBALL_ERR_MAX];
	snprintf(part, sizeof part, "events.%u", in->tid);
	struct pinball_cursor *c = pinball_cursor_open(r, part, perr);
	if (!c)
		return 0; /* a thread without events */
	size_t cap = 0;
	struct pinball_event e;
	int got;
	while ((got = pinball_next_event(c, &e)) == 1) {
		if (in->nevents == cap) {
			cap = cap ? cap * 2 : 256;
			struct replay_event *n = realloc(in->events, cap * sizeof *n);
			if (!n)
				break;
			in->events = n;
		}
		if (!copy_event(&in->events[in->nevents++], &e)) {
			got = -2;
			break;
		}
	}
	int rc = 0;
	if (got == -1)
		rc = fail(err, errlen, 2, pinball_cursor_error(c), NULL);
	else if (got != 0)
		rc = fail(err, errlen, 2, "out of memory reading the events", NULL);
	pinball_cursor_close(c);
	return rc;
}

/* Claims [start, end) minus what is already ours (the recorded mappings, earlier claims):
 * the address ranges the app will map during the region must not be taken meanwhile by the
 * replayer's own memory (code cache, heap), which a MAP_FIXED replay would overwrite. */
static int claim_range(uint64_t start, uint64_t end)
{
	for (uint64_t page = start & ~(uint64_t)(PAGE - 1); page < end; page += PAGE) {
		void *at =
		    mmap((void *)page, PAGE, PROT_NONE,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED_NOREPLACE, -1, 0);
		if (at == MAP_FAILED && errno != EEXIST)
			return -1;
		if (at != MAP_FAILED && (uint64_t)at != page)
			return -1;
		/* EEXIST: already mapped; either ours or the replayer's, see below */
	}
	return 0;
}

/* Whether [start, end) is free of the replayer's own mappings, given that the pinball's
 * ranges are already mapped: checked against /proc/self/maps and the recorded map. */
static bool collides(uint64_t start, uint64_t end, const uint64_t (*owned)[2], size_t nowned)
{
	FILE *maps = fopen("/proc/self/maps", "r");
	if (!maps)
		return false;
	char line[512];
	bool hit = false;
	while (!hit && fgets(line, sizeof line, maps)) {
		uint64_t lo, hi;
		if (sscanf(line, "%lx-%lx", &lo, &hi) != 2 || hi <= start || lo >= end)
			continue;
		/* The overlap is fine only where the pinball's own ranges cover it (the kernel
		 * merges neighbouring mappings, so one line may span several of them). */
		uint64_t a = lo > start ? lo : start, b = hi < end ? hi : end;
		while (a < b) {
			size_t i = 0;
			while (i < nowned && !(owned[i][0] <= a && a < owned[i][1]))
				i++;
			if (i == nowned)
				break;
			a = owned[i][1];
		}
		hit = a < b;
	}
	fclose(maps);
	return hit;
}

/* The ranges that mmap and mremap will map during the replay, claimed now. */
static int claim_future_mappings(struct replay_input *in, char *err, size_t errlen)
{
	for (size_t i = 0; i < in->nevents; i++) {
		const struct replay_event *e = &in->events[i];
		if (e->kind != PINBALL_EV_SYSCALL || e->result < 0)
			continue;
		uint64_t len = e->nr == SYS_mmap     ? e->args[1]
			       : e->nr == SYS_mremap ? e->args[2]
						     : 0;
		if (!len)
			continue;
		uint64_t start = (uint64_t)e->result,
			 end = start + ((len + PAGE - 1) & ~(uint64_t)(PAGE - 1));
		if (collides(start, end, (const uint64_t(*)[2])in->owned, in->nowned) ||
		    claim_range(start, end)) {
			char what[160];
			snprintf(
			    what, sizeof what,
			    "the range 0x%lx-0x%lx that the region maps is in use by the replayer",
			    start, end);
			return fail(err, errlen, 3, what, NULL);
		}
		if (in->nowned < REPLAY_MAX_OWNED) {
			in->owned[in->nowned][0] = start;
			in->owned[in->nowned][1] = end;
			in->nowned++;
		}
	}
	return 0;
}

static void copy_signal_state(const struct pinball_header *h, struct replay_input *in)
{
	in->has_signal_state = h->format_major > 1 || h->format_minor >= 1;
	in->has_echo_streams = h->format_major > 1 || h->format_minor >= 2;
	in->nsigactions = h->nsigactions < 64 ? h->nsigactions : 64;
	memcpy(in->sigactions, h->sigactions, in->nsigactions * sizeof *in->sigactions);
	in->sigstack = h->sigstack;
}

int replay_input_load(const char *basename, struct replay_input *in, char *err, size_t errlen)
{
	memset(in, 0, sizeof *in);
	char perr[PINBALL_ERR_MAX];
	struct pinball_reader *r = pinball_reader_open(basename, perr);
	if (!r)
		return fail(err, errlen, 2, perr, NULL);
	uint32_t end_tid = 0;
	uint64_t start_icount;
	int rc = map_memory(r, in, err, errlen);
	if (!rc)
		rc = read_thread(r, "threads", &in->tid, &start_icount, &in->start, err, errlen);
	if (!rc)
		rc = read_thread(r, "end", &end_tid, &in->end_icount, &in->end, err, errlen);
	if (!rc)
		rc = fill_pages(r, err, errlen);
	if (!rc)
		rc = protect_memory(r, err, errlen);
	if (!rc)
		rc = read_events(r, in, err, errlen);
	if (!rc)
		rc = claim_future_mappings(in, err, errlen);
	if (!rc)
		copy_signal_state(pinball_reader_header(r), in);
	const struct pinball_cause *stop = pinball_reader_region_stop(r);
	in->ends_at_exit = stop && stop->kind && !strcmp(stop->kind, "exit");
	pinball_reader_close(r);
	return rc;
}

#include "replay_input.h"

#include "replay_memory.h"

#include <cpuid.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

enum { PAGE = 4096 };

int replay_input_fail(char *err, size_t errlen, int code, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return code;
}

void *replay_input_grow(void *array, size_t n, size_t *cap, size_t size, size_t first)
{
	if (n < *cap)
		return array;
	size_t ncap = *cap ? *cap * 2 : first;
	void *grown = realloc(array, ncap * size);
	if (grown)
		*cap = ncap;
	return grown;
}

static bool copy_regs(struct replay_regs *out, const struct pinball_regs *in)
{
	memcpy(out->gpr, in->gpr, sizeof out->gpr);
	out->rip = in->rip;
	out->rflags = in->rflags;
	out->fs_base = in->fs_base;
	out->xsave_len = in->xsave_len;
	out->xsave = malloc(in->xsave_len ? in->xsave_len : 1);
	if (out->xsave && in->xsave_len)
		memcpy(out->xsave, in->xsave, in->xsave_len);
	return out->xsave != NULL;
}

static struct replay_thread *thread_of(struct replay_input *in, uint32_t tid, size_t *cap)
{
	for (size_t i = 0; i < in->nthreads; i++)
		if (in->threads[i].tid == tid)
			return &in->threads[i];
	struct replay_thread *grown =
	    replay_input_grow(in->threads, in->nthreads, cap, sizeof *grown, 16);
	if (!grown)
		return NULL;
	in->threads = grown;
	struct replay_thread *t = &in->threads[in->nthreads++];
	*t = (struct replay_thread){.tid = tid};
	return t;
}

const struct replay_thread *replay_input_thread(const struct replay_input *in, uint32_t tid)
{
	for (size_t i = 0; i < in->nthreads; i++)
		if (in->threads[i].tid == tid)
			return &in->threads[i];
	return NULL;
}

/* The threads' states: at the region's start ("threads") or end ("end"). */
static int read_states(const struct pinball_reader *r, struct replay_input *in, bool end,
		       size_t *cap, char *err, size_t errlen)
{
	char perr[PINBALL_ERR_MAX];
	struct pinball_cursor *c = pinball_cursor_open(r, end ? "end" : "threads", perr);
	if (!c)
		return replay_input_fail(err, errlen, 2, "%s", perr);
	struct pinball_thread p;
	int got;
	while ((got = pinball_next_thread(c, &p)) == 1) {
		struct replay_thread *t = thread_of(in, p.tid, cap);
		struct replay_regs *regs = t ? (end ? &t->end : &t->start) : NULL;
		if (!t || !copy_regs(regs, &p.regs)) {
			got = -2;
			break;
		}
		regs->signal_mask = p.signal_mask;
		if (end) {
			t->end_icount = p.icount;
			t->end_in_syscall = p.in_syscall;
		} else {
			t->at_start = true;
			t->start_in_syscall = p.in_syscall;
			memcpy(t->name, p.name, sizeof t->name);
		}
	}
	int rc = 0;
	if (got == -1)
		rc = replay_input_fail(err, errlen, 2, "%s", pinball_cursor_error(c));
	else if (got == -2)
		rc = replay_input_fail(err, errlen, 2, "out of memory reading the threads");
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
		out->output_checked = e->syscall.output_checked;
		out->output_crc = e->syscall.output_crc;
		out->output_len = e->syscall.output_len;
		out->output = malloc(out->output_len + 1);
		if (!out->output)
			return false;
		if (out->output_len)
			memcpy(out->output, e->syscall.output, out->output_len);
		if (e->syscall.mapped_path && e->syscall.mapped_path[0] &&
		    !(out->mapped_path = strdup(e->syscall.mapped_path)))
			return false;
	} else if (e->kind == PINBALL_EV_SIGNAL) {
		out->signal.signo = e->signal.signo;
		out->signal.len = e->signal.siginfo_len < sizeof out->signal.bytes
				      ? e->signal.siginfo_len
				      : sizeof out->signal.bytes;
		memcpy(out->signal.bytes, e->signal.siginfo, out->signal.len);
	} else if (e->kind == PINBALL_EV_THREAD_CREATE) {
		out->create.child_tid = e->thread_create.child_tid;
		out->create.clone_flags = e->thread_create.clone_flags;
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

/* The events of one thread (part events.<tid>). */
static int read_thread_events(const struct pinball_reader *r, struct replay_thread *t, char *err,
			      size_t errlen)
{
	char part[64], perr[PINBALL_ERR_MAX];
	snprintf(part, sizeof part, "events.%u", t->tid);
	struct pinball_cursor *c = pinball_cursor_open(r, part, perr);
	if (!c)
		return replay_input_fail(err, errlen, 2, "%s", perr);
	size_t cap = 0;
	struct pinball_event e;
	int got;
	while ((got = pinball_next_event(c, &e)) == 1) {
		struct replay_event *grown =
		    replay_input_grow(t->events, t->nevents, &cap, sizeof *grown, 256);
		if (!grown) {
			got = -2;
			break;
		}
		t->events = grown;
		if (!copy_event(&t->events[t->nevents++], &e)) {
			got = -2;
			break;
		}
	}
	int rc = 0;
	if (got == -1)
		rc = replay_input_fail(err, errlen, 2, "%s", pinball_cursor_error(c));
	else if (got != 0)
		rc = replay_input_fail(err, errlen, 2, "out of memory reading the events");
	pinball_cursor_close(c);
	return rc;
}

static int read_events(const struct pinball_reader *r, struct replay_input *in, size_t *cap,
		       char *err, size_t errlen)
{
	size_t nparts = pinball_reader_part_count(r);
	uint32_t *tids = malloc((nparts + 1) * sizeof *tids);
	if (!tids)
		return replay_input_fail(err, errlen, 2, "out of memory");
	size_t n = pinball_reader_event_tids(r, tids, nparts);
	int rc = 0;
	for (size_t i = 0; !rc && i < n; i++) {
		struct replay_thread *t = thread_of(in, tids[i], cap);
		rc = t ? read_thread_events(r, t, err, errlen)
		       : replay_input_fail(err, errlen, 2, "out of memory");
	}
	free(tids);
	return rc;
}

static int read_schedule(const struct pinball_reader *r, struct replay_input *in, char *err,
			 size_t errlen)
{
	char perr[PINBALL_ERR_MAX];
	struct pinball_cursor *c = pinball_cursor_open(r, "schedule", perr);
	if (!c)
		return replay_input_fail(err, errlen, 2, "%s", perr);
	size_t cap = 0;
	struct pinball_slice s;
	int got;
	while ((got = pinball_next_slice(c, &s)) == 1) {
		struct pinball_slice *grown =
		    replay_input_grow(in->slices, in->nslices, &cap, sizeof *grown, 256);
		if (!grown) {
			got = -2;
			break;
		}
		in->slices = grown;
		in->slices[in->nslices++] = s;
	}
	int rc = 0;
	if (got == -1)
		rc = replay_input_fail(err, errlen, 2, "%s", pinball_cursor_error(c));
	else if (got != 0)
		rc = replay_input_fail(err, errlen, 2, "out of memory reading the schedule");
	pinball_cursor_close(c);
	return rc;
}

static void copy_signal_state(const struct pinball_header *h, struct replay_input *in)
{
	in->has_signal_state = h->format_major > 1 || h->format_minor >= 1;
	in->has_echo_streams = h->format_major > 1 || h->format_minor >= 2;
	in->nsigactions = h->nsigactions < 64 ? h->nsigactions : 64;
	memcpy(in->sigactions, h->sigactions, in->nsigactions * sizeof *in->sigactions);
	in->sigstack = h->sigstack;
}

/* What the replay needs of this machine: the pinball's extended state must be one XRSTOR
 * takes here. */
static int check_machine(const struct pinball_header *h, char *err, size_t errlen)
{
	unsigned eax, size, ecx, edx;
	uint32_t lo, hi;
	__asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
	uint64_t xcr0 = (uint64_t)hi << 32 | lo;
	if (!__get_cpuid_count(0xd, 0, &eax, &size, &ecx, &edx))
		size = 0;
	if ((h->xcr0 & ~xcr0) || h->xsave_size > size)
		return replay_input_fail(
		    err, errlen, 2,
		    "the pinball was recorded with extended state this machine lacks (XCR0 "
		    "0x%lx here, 0x%lx there)",
		    xcr0, h->xcr0);
	return 0;
}

/* The start state of a thread, beyond what pinball_verify checks: flags the runtime
 * replays, and a first instruction in recorded executable memory. */
static int check_start(const struct replay_input *in, const struct replay_regs *r, char *err,
		       size_t errlen)
{
	enum { CF = 1, ONE = 2, PF = 4, AF = 0x10, ZF = 0x40, SF = 0x80, IF = 0x200, DF = 0x400 };
	enum { OF = 0x800, AC = 0x40000, ID = 0x200000 };
	const uint64_t replayed = CF | ONE | PF | AF | ZF | SF | IF | DF | OF | AC | ID;
	if (r->rflags & ~replayed)
		return replay_input_fail(
		    err, errlen, 2,
		    "the pinball's start rflags 0x%lx has flags a replay cannot reproduce "
		    "(single-stepping, virtual-8086, I/O privilege)",
		    r->rflags);
	for (size_t i = 0; i < in->nranges; i++) {
		const struct replay_range *m = &in->ranges[i];
		if (m->kind == RANGE_RECORDED && m->start <= r->rip && r->rip < m->end &&
		    (m->prot & PROT_EXEC))
			return 0;
	}
	return replay_input_fail(
	    err, errlen, 2, "the pinball's start rip 0x%lx is not in recorded executable memory",
	    r->rip);
}

/* argv[0] as an exec would have found it: a path (relative to the recorded cwd) or a name
 * on the PATH; resolved to the file, as the runtime names the program's mappings. */
static void find_program(const struct pinball_header *h, struct replay_input *in)
{
	if (!h->argc || !h->argv[0][0])
		return;
	const char *name = h->argv[0];
	char candidate[PATH_MAX * 2];
	if (strchr(name, '/')) {
		snprintf(candidate, sizeof candidate, "%s%s%s", name[0] == '/' ? "" : h->cwd,
			 name[0] == '/' ? "" : "/", name);
		if (!realpath(candidate, in->program))
			in->program[0] = '\0';
		return;
	}
	const char *path = getenv("PATH");
	for (const char *dir = path; dir && *dir;) {
		size_t n = strcspn(dir, ":");
		snprintf(candidate, sizeof candidate, "%.*s/%s", (int)n, dir, name);
		if (access(candidate, X_OK) == 0 && realpath(candidate, in->program))
			return;
		dir += n + (dir[n] == ':');
	}
	in->program[0] = '\0';
}

int replay_input_load(const char *basename, struct replay_input *in, char *err, size_t errlen)
{
	memset(in, 0, sizeof *in);
	char perr[PINBALL_ERR_MAX];
	/* One reading, checked as pinball_verify checks: each record before it is used, the
	 * whole before the replay begins (decoding the pinball twice, verifying then loading,
	 * made a replay slower than the recording). */
	struct pinball_reader *r = pinball_reader_open(basename, perr);
	if (!r)
		return replay_input_fail(err, errlen, 2, "%s", perr);
	if (pinball_reader_check(r, perr)) {
		pinball_reader_close(r);
		return replay_input_fail(err, errlen, 2, "%s", perr);
	}
	size_t cap = 0;
	int rc = check_machine(pinball_reader_header(r), err, errlen);
	if (!rc)
		rc = replay_memory_map(r, in, err, errlen);
	if (!rc)
		rc = read_states(r, in, false, &cap, err, errlen);
	for (size_t i = 0; !rc && i < in->nthreads; i++)
		rc = check_start(in, &in->threads[i].start, err, errlen);
	if (!rc)
		rc = read_states(r, in, true, &cap, err, errlen);
	if (!rc)
		rc = read_events(r, in, &cap, err, errlen);
	if (!rc)
		rc = read_schedule(r, in, err, errlen);
	if (!rc && pinball_reader_checked(r, perr))
		rc = replay_input_fail(err, errlen, 2, "%s", perr);
	if (!rc && !in->nthreads)
		rc = replay_input_fail(err, errlen, 2, "the pinball has no thread");
	if (!rc)
		rc = replay_memory_claim_future(in, err, errlen);
	if (!rc)
		copy_signal_state(pinball_reader_header(r), in);
	if (!rc)
		find_program(pinball_reader_header(r), in);
	const struct pinball_cause *stop = pinball_reader_region_stop(r);
	in->ends_at_exit = stop && stop->kind && !strcmp(stop->kind, "exit");
	if (stop && stop->kind && !strcmp(stop->kind, "signal") && stop->spec)
		snprintf(in->death_signal, sizeof in->death_signal, "%s", stop->spec);
	pinball_reader_close(r);
	return rc;
}

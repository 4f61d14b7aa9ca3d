#include "synth.h"

#include <dirent.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "page_pattern.h"

#define PAGE 4096u
#define BASE_ADDR 0x7f0000000000u

static const char *const argv_[] = {"./app", "--flag", "input file"};
static const struct pinball_cpuid_leaf leaves[] = {
    {1, 0, 0x906ea, 0x100800, 0x7ffafbff, 0xbfebfbff},
    {7, 0, 0, 0x29c6fbf, 0x40000000, 0xbc000400}};
static const struct pinball_xsave_component comps[] = {{2, 576, 256}, {5, 832, 64}};
static uint8_t xsave_area[1024];
static uint8_t kernel_bytes[3][300];
static uint8_t siginfo[128];

uint32_t synth_tid(uint32_t t)
{
	return 1000 + 7 * t;
}

static void fill_statics(void)
{
	/* A pattern XRSTOR would take: MXCSR's reserved bits and the xsave header clear. */
	for (size_t i = 0; i < sizeof xsave_area; i++)
		xsave_area[i] = i >= 512 && i < 576 ? 0 : (uint8_t)(i * 7);
	xsave_area[26] = xsave_area[27] = 0;
	for (size_t k = 0; k < 3; k++)
		for (size_t i = 0; i < sizeof kernel_bytes[k]; i++)
			kernel_bytes[k][i] = (uint8_t)(i + 31 * k);
	for (size_t i = 0; i < sizeof siginfo; i++)
		siginfo[i] = (uint8_t)(255 - i);
}

static struct pinball_header header(void)
{
	return (struct pinball_header){
	    .tool_version = "pintrace 0.1.0",
	    .argc = 3,
	    .argv = argv_,
	    .cwd = "/home/user/work dir",
	    .env_count = 42,
	    .env_bytes = 3000,
	    .arch = "x86_64",
	    .cpu_vendor = "GenuineIntel",
	    .cpu_family = 6,
	    .cpu_model = 158,
	    .cpu_stepping = 10,
	    .ncpuid = 2,
	    .cpuid = leaves,
	    .xcr0 = 0x7,
	    .xsave_size = sizeof xsave_area,
	    .nxsave_components = 2,
	    .xsave_components = comps,
	    .page_size = PAGE,
	    .creation_time_ns = 1700000000123456789u,
	    .pid = 4242,
	    .region_start = {"control", "start:ssc:11223344", 1000, 12345},
	};
}

static const struct pinball_cause stop_cause = {"control", "stop:icount:5000", 1007, 99999};

static void thread_state(uint32_t t, uint64_t icount, struct pinball_thread *out)
{
	memset(out, 0, sizeof *out);
	out->tid = synth_tid(t);
	out->icount = icount;
	for (int r = 0; r < PINBALL_GPR_COUNT; r++)
		out->regs.gpr[r] = ((uint64_t)t << 32) | (uint64_t)r * 0x1111 | icount;
	out->regs.rip = 0x401000 + t;
	out->regs.rflags = 0x246;
	out->regs.fs_base = 0x7f00000010 + t;
	out->regs.gs_base = 0;
	out->regs.xsave = xsave_area;
	out->regs.xsave_len = sizeof xsave_area;
}

/* Slice i of the schedule, round-robin over the threads: each thread's slices add up to
 * its end count, 5000 + t. */
static uint64_t slice_instructions(uint32_t i)
{
	uint32_t t = i % SYNTH_THREADS;
	bool last = i >= SYNTH_SLICES - SYNTH_THREADS;
	return 5000 / (SYNTH_SLICES / SYNTH_THREADS) + (last ? t : 0);
}

void synth_event(uint32_t t, uint32_t i, struct pinball_event *e)
{
	static struct pinball_mem_write writes[3];
	memset(e, 0, sizeof *e);
	e->icount = 100 * (uint64_t)i + t;
	switch (i % 5) {
	case 0:
		e->kind = PINBALL_EV_SYSCALL;
		e->syscall.nr = i;
		for (int a = 0; a < 6; a++)
			e->syscall.args[a] = i * 10 + (uint64_t)a;
		e->syscall.result = i % 2 ? -14 : (int64_t)i * 3;
		e->syscall.nwrites = i % 4;
		for (size_t k = 0; k < e->syscall.nwrites; k++)
			writes[k] = (struct pinball_mem_write){0x10000 + k * 0x1000 + i,
							       kernel_bytes[k], 100 + k * 100};
		e->syscall.writes = writes;
		break;
	case 1:
		e->kind = PINBALL_EV_INSN;
		e->insn.kind = (enum pinball_insn_kind)(1 + i % 7);
		e->insn.rax = i;
		e->insn.rbx = i * 2;
		e->insn.rcx = i * 3;
		e->insn.rdx = UINT64_MAX - i;
		e->insn.value = i * 5;
		e->insn.dest_reg = i % 16;
		e->insn.cf = i % 2;
		e->insn.in_eax = i % 3;
		e->insn.in_ecx = i % 4;
		break;
	case 2:
		e->kind = PINBALL_EV_SIGNAL;
		e->signal.signo = (int32_t)(1 + i % 31);
		e->signal.siginfo = siginfo;
		e->signal.siginfo_len = sizeof siginfo;
		break;
	case 3:
		e->kind = PINBALL_EV_THREAD_CREATE;
		e->thread_create.child_tid = 5000 + i;
		e->thread_create.clone_flags = 0x3d0f00;
		break;
	default:
		e->kind = PINBALL_EV_THREAD_EXIT;
		e->thread_exit.status = -(int32_t)i;
	}
}

/* The page records, in order: data pages with zero runs in between. */
static void page_at(uint32_t k, uint64_t *addr, uint32_t *prot, bool *zero)
{
	/* 0-19 data, 20-27 zero (prot 3), 28-35 zero (prot 1), then the other data pages, then
	 * the last 8 zero pages */
	*addr = BASE_ADDR + (uint64_t)k * PAGE;
	*prot = k >= 28 && k < 36 ? 1 : 3;
	*zero = (k >= 20 && k < 36) || k >= 16 + SYNTH_DATA_PAGES;
}

int synth_write(const char *base, char err[PINBALL_ERR_MAX])
{
	fill_statics();
	struct pinball_header h = header();
	struct pinball_writer *w = pinball_writer_create(base, &h, err);
	if (!w)
		return -1;
	static uint8_t page[PAGE];
	struct pinball_thread th;
	int ok = 0;
	for (uint32_t t = 0; ok == 0 && t < SYNTH_THREADS; t++) {
		thread_state(t, 0, &th);
		ok = pinball_writer_add_thread(w, &th);
	}
	struct pinball_map_entry maps[] = {{0x400000, 0x401000, 5, 2, 0, "/bin/app"},
					   {BASE_ADDR, BASE_ADDR + 128 * PAGE, 3, 0x22, 0, ""}};
	for (size_t i = 0; ok == 0 && i < 2; i++)
		ok = pinball_writer_add_map(w, &maps[i]);
	for (uint32_t k = 0; ok == 0 && k < SYNTH_DATA_PAGES + SYNTH_ZERO_PAGES; k++) {
		uint64_t addr;
		uint32_t prot;
		bool zero;
		page_at(k, &addr, &prot, &zero);
		if (zero)
			memset(page, 0, PAGE);
		else
			page_pattern(page, PAGE, k);
		ok = pinball_writer_add_page(w, addr, prot, page);
	}
	struct pinball_event e;
	for (uint32_t i = 0; ok == 0 && i < SYNTH_EVENTS; i++)
		for (uint32_t t = 0; ok == 0 && t < SYNTH_THREADS; t++) {
			synth_event(t, i, &e);
			ok = pinball_writer_add_event(w, synth_tid(t), &e);
		}
	for (uint32_t i = 0; ok == 0 && i < SYNTH_SLICES; i++) {
		struct pinball_slice s = {synth_tid(i % SYNTH_THREADS), slice_instructions(i)};
		ok = pinball_writer_add_slice(w, &s);
	}
	for (uint32_t t = 0; ok == 0 && t < SYNTH_THREADS; t++) {
		thread_state(t, 5000 + t, &th);
		ok = pinball_writer_add_end(w, &th);
	}
	if (ok == 0)
		ok = pinball_writer_finish(w, &stop_cause);
	if (ok < 0)
		snprintf(err, PINBALL_ERR_MAX, "%s", pinball_writer_error(w));
	pinball_writer_free(w);
	return ok;
}

#define CHECK(cond)                                                                                \
	do {                                                                                       \
		if (!(cond))                                                                       \
			return "mismatch: " #cond;                                                 \
	} while (0)

static const char *check_header(const struct pinball_reader *r)
{
	const struct pinball_header *h = pinball_reader_header(r), want = header();
	CHECK(h->format_major == PINBALL_FORMAT_MAJOR && h->format_minor == PINBALL_FORMAT_MINOR);
	CHECK(!strcmp(h->tool_version, want.tool_version) && h->argc == 3);
	for (size_t i = 0; i < 3; i++)
		CHECK(!strcmp(h->argv[i], argv_[i]));
	CHECK(!strcmp(h->cwd, want.cwd) && h->env_count == 42 && h->env_bytes == 3000);
	CHECK(!strcmp(h->arch, "x86_64") && !strcmp(h->cpu_vendor, "GenuineIntel"));
	CHECK(h->cpu_family == 6 && h->cpu_model == 158 && h->cpu_stepping == 10);
	CHECK(h->ncpuid == 2 && !memcmp(h->cpuid, leaves, sizeof leaves));
	CHECK(h->xcr0 == 7 && h->xsave_size == sizeof xsave_area && h->nxsave_components == 2);
	CHECK(!memcmp(h->xsave_components, comps, sizeof comps));
	CHECK(h->page_size == PAGE && h->creation_time_ns == want.creation_time_ns &&
	      h->pid == 4242);
	CHECK(!strcmp(h->region_start.spec, want.region_start.spec));
	CHECK(h->region_start.tid == 1000 && h->region_start.icount == 12345);
	const struct pinball_cause *stop = pinball_reader_region_stop(r);
	CHECK(!strcmp(stop->kind, "control") && !strcmp(stop->spec, stop_cause.spec));
	CHECK(stop->tid == stop_cause.tid && stop->icount == stop_cause.icount);
	const struct pinball_summary *s = pinball_reader_summary(r);
	CHECK(s->threads == SYNTH_THREADS && s->data_pages == SYNTH_DATA_PAGES);
	CHECK(s->zero_pages == SYNTH_ZERO_PAGES && s->map_entries == 2 &&
	      s->slices == SYNTH_SLICES);
	CHECK(s->syscalls + s->nondet_insns + s->signals + s->thread_events ==
	      SYNTH_THREADS * SYNTH_EVENTS);
	CHECK(s->instructions == 3 * 5000 + 0 + 1 + 2);
	return NULL;
}

static bool regs_equal(const struct pinball_thread *a, const struct pinball_thread *b)
{
	return a->tid == b->tid && a->icount == b->icount &&
	       !memcmp(a->regs.gpr, b->regs.gpr, sizeof a->regs.gpr) &&
	       a->regs.rip == b->regs.rip && a->regs.rflags == b->regs.rflags &&
	       a->regs.fs_base == b->regs.fs_base && a->regs.gs_base == b->regs.gs_base &&
	       a->regs.xsave_len == b->regs.xsave_len &&
	       !memcmp(a->regs.xsave, b->regs.xsave, a->regs.xsave_len);
}

static const char *check_threads(const struct pinball_reader *r, const char *part, uint64_t icount)
{
	char err[PINBALL_ERR_MAX];
	struct pinball_cursor *c = pinball_cursor_open(r, part, err);
	CHECK(c != NULL);
	struct pinball_thread got, want;
	for (uint32_t t = 0; t < SYNTH_THREADS; t++) {
		thread_state(t, icount ? icount + t : 0, &want);
		if (pinball_next_thread(c, &got) != 1 || !regs_equal(&got, &want)) {
			pinball_cursor_close(c);
			return "thread state differs";
		}
	}
	int end = pinball_next_thread(c, &got);
	pinball_cursor_close(c);
	CHECK(end == 0);
	return NULL;
}

static const char *check_pages(const struct pinball_reader *r)
{
	char err[PINBALL_ERR_MAX];
	struct pinball_cursor *c = pinball_cursor_open(r, "pages", err);
	CHECK(c != NULL);
	static uint8_t want[PAGE];
	struct pinball_page p;
	uint32_t k = 0;
	const char *bad = NULL;
	while (!bad && pinball_next_page(c, &p) == 1) {
		uint64_t addr;
		uint32_t prot;
		bool zero;
		page_at(k, &addr, &prot, &zero);
		page_pattern(want, PAGE, k);
		if (p.addr != addr || p.prot != prot || zero != !p.data)
			bad = "page address, prot or kind differs";
		else if (p.data && memcmp(p.data, want, PAGE))
			bad = "page data differs";
		else if (!p.data && p.npages != 8)
			bad = "zero run not coalesced into 8 pages";
		k += (uint32_t)p.npages;
	}
	pinball_cursor_close(c);
	CHECK(k == SYNTH_DATA_PAGES + SYNTH_ZERO_PAGES);
	return bad;
}

/* True when two events are equal, following their pointers. */
static bool events_equal(const struct pinball_event *a, const struct pinball_event *b)
{
	if (a->icount != b->icount || a->kind != b->kind)
		return false;
	switch (a->kind) {
	case PINBALL_EV_SYSCALL:
		if (a->syscall.nr != b->syscall.nr || a->syscall.result != b->syscall.result ||
		    memcmp(a->syscall.args, b->syscall.args, sizeof a->syscall.args) ||
		    a->syscall.nwrites != b->syscall.nwrites)
			return false;
		for (size_t k = 0; k < a->syscall.nwrites; k++) {
			const struct pinball_mem_write *x = &a->syscall.writes[k],
						       *y = &b->syscall.writes[k];
			if (x->addr != y->addr || x->len != y->len ||
			    memcmp(x->data, y->data, x->len))
				return false;
		}
		return true;
	case PINBALL_EV_INSN:
		return !memcmp(&a->insn, &b->insn, sizeof a->insn);
	case PINBALL_EV_SIGNAL:
		return a->signal.signo == b->signal.signo &&
		       a->signal.siginfo_len == b->signal.siginfo_len &&
		       !memcmp(a->signal.siginfo, b->signal.siginfo, a->signal.siginfo_len);
	case PINBALL_EV_THREAD_CREATE:
		return a->thread_create.child_tid == b->thread_create.child_tid &&
		       a->thread_create.clone_flags == b->thread_create.clone_flags;
	case PINBALL_EV_THREAD_EXIT:
		return a->thread_exit.status == b->thread_exit.status;
	}
	return false;
}

static const char *check_events(const struct pinball_reader *r, uint32_t t)
{
	char err[PINBALL_ERR_MAX], part[32];
	snprintf(part, sizeof part, "events.%u", synth_tid(t));
	struct pinball_cursor *c = pinball_cursor_open(r, part, err);
	CHECK(c != NULL);
	struct pinball_event got, want;
	const char *bad = NULL;
	for (uint32_t i = 0; !bad && i < SYNTH_EVENTS; i++) {
		synth_event(t, i, &want);
		if (pinball_next_event(c, &got) != 1 || !events_equal(&got, &want))
			bad = "event differs";
	}
	if (!bad && pinball_next_event(c, &got) != 0)
		bad = "extra events";
	pinball_cursor_close(c);
	return bad;
}

static const char *check_rest(const struct pinball_reader *r)
{
	char err[PINBALL_ERR_MAX];
	struct pinball_cursor *c = pinball_cursor_open(r, "memmap", err);
	CHECK(c != NULL);
	struct pinball_map_entry m;
	int a = pinball_next_map(c, &m);
	bool first = a == 1 && m.start == 0x400000 && m.end == 0x401000 && m.prot == 5 &&
		     m.flags == 2 && !strcmp(m.path, "/bin/app");
	int b = pinball_next_map(c, &m), end = pinball_next_map(c, &m);
	pinball_cursor_close(c);
	CHECK(first && b == 1 && end == 0);
	c = pinball_cursor_open(r, "schedule", err);
	CHECK(c != NULL);
	struct pinball_slice s;
	uint32_t i = 0;
	while (pinball_next_slice(c, &s) == 1 && s.tid == synth_tid(i % SYNTH_THREADS) &&
	       s.instructions == slice_instructions(i))
		i++;
	pinball_cursor_close(c);
	CHECK(i == SYNTH_SLICES);
	return NULL;
}

const char *synth_check(const char *base)
{
	char err[PINBALL_ERR_MAX];
	struct pinball_reader *r = pinball_reader_open(base, err);
	if (!r)
		return "cannot open";
	uint32_t tids[8];
	const char *bad = check_header(r);
	if (!bad && pinball_reader_event_tids(r, tids, 8) != SYNTH_THREADS)
		bad = "wrong number of events parts";
	if (!bad)
		bad = check_threads(r, "threads", 0);
	if (!bad)
		bad = check_threads(r, "end", 5000);
	if (!bad)
		bad = check_pages(r);
	for (uint32_t t = 0; !bad && t < SYNTH_THREADS; t++)
		bad = check_events(r, t);
	if (!bad)
		bad = check_rest(r);
	pinball_reader_close(r);
	return bad;
}

char *synth_tmpdir(void)
{
	const char *root = getenv("TMPDIR");
	char *dir;
	if (asprintf(&dir, "%s/pinball-test-XXXXXX", root && *root ? root : "/tmp") < 0)
		return NULL;
	if (!mkdtemp(dir)) {
		free(dir);
		return NULL;
	}
	return dir;
}

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

void synth_rmdir(char *dir)
{
	if (dir)
		nftw(dir, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
	free(dir);
}

int synth_count_files(const char *dir, const char *part)
{
	DIR *d = opendir(dir);
	if (!d)
		return -1;
	int n = 0;
	struct dirent *e;
	while ((e = readdir(d)))
		if (e->d_name[0] != '.' && (!part || strstr(e->d_name, part)))
			n++;
	closedir(d);
	return n;
}

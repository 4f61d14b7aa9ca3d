#include "region_snapshot.h"

#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>

#include "jit_app.h"
#include "rt_alloc.h"
#include "rt_format.h"
#include "rt_string.h"
#include "rt_syscall.h"

enum { PAGE = 4096 };

/* The thread's name as the kernel keeps it (its comm), for debuggers of the replay. */
static void thread_name(const struct jit_thread *t, char name[16])
{
	char path[64];
	rt_format(path, sizeof path, "/proc/self/task/%d/comm", jit_thread_os_tid(t));
	long fd = rt_openat(AT_FDCWD, path, O_RDONLY | O_CLOEXEC, 0);
	long n = fd < 0 ? 0 : rt_read((int)fd, name, 15);
	if (fd >= 0)
		rt_close((int)fd);
	name[n > 0 ? n : 0] = '\0';
	for (char *c = name; *c; c++)
		if (*c == '\n')
			*c = '\0';
}

void region_snapshot_state(enum record_kind kind, struct jit_thread *t, uint64_t icount,
			   const struct state_note *note)
{
	size_t xlen;
	const uint8_t *xsave = jit_thread_xsave(t, &xlen);
	struct record *r = must_new(kind, xlen);
	struct jit_regs regs;
	jit_thread_get_regs(t, &regs);
	if (note->after_syscall)
		regs.gpr[JIT_GPR_RAX] = (uint64_t)note->result;
	if (note->after_syscall || (note->in_syscall && kind == REC_THREAD)) {
		regs.gpr[JIT_GPR_RCX] = regs.rip; /* what the syscall instruction leaves */
		regs.gpr[JIT_GPR_R11] = regs.rflags;
	}
	memcpy(r->data, xsave, xlen);
	r->u.thread = (struct pinball_thread){.tid = jit_thread_id(t),
					      .icount = icount,
					      .signal_mask = jit_thread_sigmask(t),
					      .in_syscall = note->in_syscall,
					      .syscall_nr = (uint64_t)note->nr};
	memcpy(r->u.thread.regs.gpr, regs.gpr, sizeof regs.gpr);
	r->u.thread.regs.rip = regs.rip;
	r->u.thread.regs.rflags = regs.rflags;
	r->u.thread.regs.fs_base = regs.fs_base;
	r->u.thread.regs.gs_base = regs.gs_base;
	r->u.thread.regs.xsave = r->data;
	r->u.thread.regs.xsave_len = xlen;
	thread_name(t, r->u.thread.name);
	record_push(r);
}

static void record_map(uint64_t start, uint64_t end, uint32_t prot, uint32_t flags, uint64_t offset,
		       const char *path)
{
	size_t plen = path ? strlen(path) + 1 : 0;
	struct record *r = must_new(REC_MAP, plen);
	if (path)
		memcpy(r->data, path, plen);
	r->u.map = (struct pinball_map_entry){start, end,    prot,
					      flags, offset, path ? (const char *)r->data : NULL};
	record_push(r);
}

static int record_mapping(const struct jit_app_mapping *m, void *arg)
{
	(void)arg;
	record_map(m->start, m->end, m->prot, m->flags, m->offset, m->path);
	return 0;
}

/* Pages of a private anonymous mapping that the process never touched (neither present
 * nor swapped out, as /proc/self/pagemap says) hold zeros: a huge reservation is recorded
 * as runs of them without being read. From `page`, how many such pages follow (up to
 * `max`); 0 when the page was touched or pagemap cannot tell. */
static uint64_t untouched_pages(int pagemap, uint64_t page, uint64_t max)
{
	enum { BATCH = 512, PRESENT_OR_SWAPPED = 3 };
	uint64_t entries[BATCH], n = 0;
	while (n < max) {
		uint64_t want = max - n < BATCH ? max - n : BATCH;
		long got = rt_syscall4(SYS_pread64, pagemap, (long)entries, (long)(want * 8),
				       (long)((page / PAGE + n) * 8));
		if (got <= 0)
			return n;
		for (uint64_t i = 0; i < (uint64_t)got / 8; i++, n++)
			if (entries[i] >> 62 & PRESENT_OR_SWAPPED)
				return n;
	}
	return n;
}

static bool private_anonymous(const struct jit_app_mapping *m)
{
	return (m->flags & MAP_PRIVATE) &&
	       (!m->path || !strcmp(m->path, "[heap]") || !strcmp(m->path, "[stack]"));
}

/* Every readable page of a mapping, as it is now (-log:fat 1). */
static int snapshot_mapping(const struct jit_app_mapping *m, void *arg)
{
	int pagemap = *(int *)arg;
	if (!(m->prot & PROT_READ))
		return 0;
	for (uint64_t page = m->start; page < m->end; page += PAGE) {
		uint64_t zeros = pagemap >= 0 && private_anonymous(m)
				     ? untouched_pages(pagemap, page, (m->end - page) / PAGE)
				     : 0;
		if (zeros) {
			struct record *z = must_new(REC_PAGE, 0);
			z->u.page.addr = page;
			z->u.page.prot = m->prot;
			z->u.page.zero_pages = zeros;
			record_push(z);
			page += (zeros - 1) * PAGE;
			continue;
		}
		struct record *r = record_new_page();
		int fault = jit_copy_app_memory(r->page, page, PAGE);
		if (fault && fault != SIGBUS) {
			record_discard(r);
			continue;
		}
		r->u.page.addr = page;
		r->u.page.prot = m->prot;
		r->u.page.data = fault ? NULL : r->page;
		r->u.page.zero_pages = fault ? 1 : 0;
		r->u.page.past_end = fault == SIGBUS; /* (past the end of its file) */
		record_push(r);
	}
	return 0;
}

/* The actions other than the default and the alternate stack, into a REC_BEGIN record
 * with room for 64 actions. */
static void describe_signal_state(struct record *r, const struct jit_thread *t)
{
	struct pinball_sigaction *acts = (struct pinball_sigaction *)r->data;
	size_t n = 0;
	for (int sig = 1; sig <= 64; sig++) {
		struct jit_sigaction a;
		jit_app_sigaction(t, sig, &a);
		if (a.handler || a.flags || a.restorer || a.mask)
			acts[n++] =
			    (struct pinball_sigaction){sig, a.handler, a.flags, a.restorer, a.mask};
	}
	r->u.begin.nsigactions = n;
	r->u.begin.sigactions = acts;
	struct jit_sigstack ss;
	jit_app_sigstack(t, &ss);
	r->u.begin.sigstack = (struct pinball_sigstack){ss.sp, ss.flags, ss.size};
}

void region_snapshot_begin(const struct jit_thread *t, const char *path,
			   const struct pinball_cause *cause, bool fat)
{
	enum { ACTIONS = 64 * sizeof(struct pinball_sigaction), SPEC = 256 };
	struct record *r = must_new(REC_BEGIN, ACTIONS + SPEC);
	r->u.begin.basename = path;
	r->u.begin.cause = *cause;
	/* The cause's text is the recorder's, which the region's stop event rewrites, maybe
	 * before the writer thread got here: the record keeps its own copy. */
	char *spec = (char *)r->data + ACTIONS;
	rt_strlcpy(spec, cause->spec ? cause->spec : "", SPEC);
	r->u.begin.cause.spec = spec;
	describe_signal_state(r, t);
	record_push(r);
	uint64_t brk_start, brk_cur, brk_mapped;
	jit_app_brk_state(&brk_start, &brk_cur, &brk_mapped);
	/* The emulated break: a pseudo-mapping the replayer turns back into break state. */
	record_map(brk_start, brk_cur, 0, 0, brk_mapped - brk_start, "[brk]");
	jit_app_map_foreach(record_mapping, NULL);
	if (fat) {
		int pagemap =
		    (int)rt_openat(AT_FDCWD, "/proc/self/pagemap", O_RDONLY | O_CLOEXEC, 0);
		jit_app_map_foreach(snapshot_mapping, &pagemap);
		if (pagemap >= 0)
			rt_close(pagemap);
	}
}

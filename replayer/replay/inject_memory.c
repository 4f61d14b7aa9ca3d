#include "inject_memory.h"

#include <linux/memfd.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>

#include "jit_app.h"
#include "rt_format.h"
#include "rt_syscall.h"
#include "shared_files.h"

static const uint64_t PAGE = 4096;

static uint64_t page_up(uint64_t x)
{
	return (x + PAGE - 1) & ~(PAGE - 1);
}

/* Walks the app's mappings (in address order) over [at, end): covered while every byte is
 * in a mapping with at least `need` of the protection bits. */
struct coverage {
	uint64_t at, end;
	uint32_t need;
	bool covered;
};

static int cover_step(const struct jit_app_mapping *m, void *arg)
{
	struct coverage *c = arg;
	if (m->end <= c->at)
		return 0;
	if (m->start > c->at || (m->prot & c->need) != c->need)
		return 1; /* a hole, or too little access */
	c->at = m->end;
	if (c->at >= c->end) {
		c->covered = true;
		return 1;
	}
	return 0;
}

static bool app_covers(uint64_t start, uint64_t end, uint32_t need)
{
	if (start >= end)
		return true;
	struct coverage c = {start, end, need, false};
	jit_app_map_foreach(cover_step, &c);
	return c.covered;
}

/* Whether the replay holds [start, end) for the app: its mappings now, or what the replayer
 * reserved for it at load (recorded mappings, the break, the ranges the region maps). */
static bool held(const struct replay_input *in, uint64_t start, uint64_t end)
{
	while (start < end) {
		uint64_t next = start;
		for (size_t i = 0; i < in->nranges; i++)
			if (in->ranges[i].start <= start && start < in->ranges[i].end)
				next = in->ranges[i].end;
		if (next == start) {
			struct coverage c = {start, end, 0, false};
			jit_app_map_foreach(cover_step, &c);
			if (c.at == start)
				return false;
			next = c.covered ? end : c.at;
		}
		start = next;
	}
	return true;
}

const char *inject_writes(const struct replay_event *e, char *why, size_t whylen)
{
	for (size_t i = 0; i < e->nwrites; i++) {
		const struct pinball_mem_write *w = &e->writes[i];
		if (w->addr + w->len < w->addr ||
		    !app_covers(w->addr, w->addr + w->len, PROT_WRITE)) {
			rt_format(
			    why, whylen,
			    "the recording has the kernel write %lu bytes at 0x%lx, where the "
			    "app has no writable memory",
			    (unsigned long)w->len, w->addr);
			return why;
		}
	}
	for (size_t i = 0; i < e->nwrites; i++)
		memcpy((void *)e->writes[i].addr, e->writes[i].data, e->writes[i].len);
	return NULL;
}

/* The pieces of [start, end) where the app has mappings, unmapped (the holes were free in
 * the recording: unmapping them was a no-op there, and here they may be the replayer's). */
struct pieces {
	uint64_t start, end;
	uint64_t at[64][2];
	int n;
};

static int piece_step(const struct jit_app_mapping *m, void *arg)
{
	struct pieces *p = arg;
	if (m->end <= p->start || m->start >= p->end)
		return 0;
	if (p->n == 64)
		return 1;
	p->at[p->n][0] = m->start > p->start ? m->start : p->start;
	p->at[p->n][1] = m->end < p->end ? m->end : p->end;
	p->n++;
	return 0;
}

static long unmap_app_pieces(uint64_t start, uint64_t end)
{
	struct pieces p;
	do {
		p = (struct pieces){.start = start, .end = end};
		jit_app_map_foreach(piece_step, &p);
		for (int i = 0; i < p.n; i++) {
			const long args[6] = {(long)p.at[i][0], (long)(p.at[i][1] - p.at[i][0])};
			long r = jit_app_memory_syscall(SYS_munmap, args);
			if (r)
				return r;
		}
	} while (p.n == 64);
	return 0;
}

static const char *not_the_apps(const char *what, uint64_t start, uint64_t end, char *why,
				size_t whylen)
{
	rt_format(why, whylen, "the recording has %s 0x%lx-0x%lx, which is not the app's memory",
		  what, start, end);
	return why;
}

static const char *remap(const struct replay_input *in, const long a[6],
			 const struct replay_event *e, long *result, char *why, size_t whylen)
{
	long r = e->result;
	uint64_t old = (uint64_t)a[0], old_len = page_up((uint64_t)a[1]);
	uint64_t new_len = page_up((uint64_t)a[2]);
	if (!old_len || !app_covers(old, old + old_len, 0))
		return not_the_apps("mremap move", old, old + old_len, why, whylen);
	long args[6] = {a[0], a[1], a[2], a[3], a[4], a[5]};
	if ((uint64_t)r == old) {
		/* In place, as recorded: the pages it grows into were free then, and are the
		 * replayer's claim on the range now. */
		if (new_len > old_len) {
			if (!held(in, old + old_len, old + new_len))
				return not_the_apps("mremap grow into", old + old_len,
						    old + new_len, why, whylen);
			rt_syscall2(SYS_munmap, (long)(old + old_len), (long)(new_len - old_len));
		}
		args[3] = a[3] & ~(long)(MREMAP_MAYMOVE | MREMAP_FIXED);
	} else {
		/* Moved: to the recorded address, over the claim there. */
		if (!held(in, (uint64_t)r, (uint64_t)r + new_len))
			return not_the_apps("mremap move to", (uint64_t)r, (uint64_t)r + new_len,
					    why, whylen);
		args[3] = a[3] | MREMAP_MAYMOVE | MREMAP_FIXED;
		args[4] = r;
	}
	*result = jit_app_memory_syscall(SYS_mremap, args);
	/* A file mapping grown: the recording has what the file shows there. */
	return *result == r ? inject_writes(e, why, whylen) : NULL;
}

const struct replay_mmap_page *inject_mmap_pages_of(const struct replay_input *in, uint32_t tid,
						    uint64_t icount, size_t *n)
{
	size_t lo = 0, hi = in->nmmap_pages;
	while (lo < hi) { /* the first page at or after (tid, icount) */
		size_t mid = (lo + hi) / 2;
		const struct replay_mmap_page *m = &in->mmap_pages[mid];
		if (m->tid < tid || (m->tid == tid && m->icount < icount))
			lo = mid + 1;
		else
			hi = mid;
	}
	size_t end = lo;
	while (end < in->nmmap_pages && in->mmap_pages[end].tid == tid &&
	       in->mmap_pages[end].icount == icount)
		end++;
	*n = end - lo;
	return &in->mmap_pages[lo];
}

bool inject_past_end_page(uint64_t addr)
{
	/* (a view of an empty file: the mapping keeps it once its descriptor is closed) */
	long fd = rt_syscall2(SYS_memfd_create, (long)"past the end of a file", MFD_CLOEXEC);
	if (fd < 0)
		return false;
	long at = rt_mmap((void *)addr, PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_FIXED,
			  (int)fd, 0);
	rt_close((int)fd);
	return at == (long)addr;
}

/* The pages the region touched of the file mapping [start, end) that thread tid's mmap at
 * icount made, into place (it is writable now). */
static const char *put_mmap_pages(const struct replay_input *in, uint32_t tid, uint64_t icount,
				  uint64_t start, uint64_t end, char *why, size_t whylen)
{
	size_t n;
	const struct replay_mmap_page *p = inject_mmap_pages_of(in, tid, icount, &n);
	for (size_t i = 0; i < n; i++) {
		if (p[i].addr < start || p[i].addr >= end || (p[i].addr & (PAGE - 1))) {
			rt_format(why, whylen,
				  "the recording has a page at 0x%lx of the mapping 0x%lx-0x%lx, "
				  "outside it",
				  p[i].addr, start, end);
			return why;
		}
		if (p[i].past_end && !inject_past_end_page(p[i].addr)) {
			rt_format(why, whylen, "cannot map the page 0x%lx past the end of its file",
				  p[i].addr);
			return why;
		}
		if (p[i].data)
			memcpy((void *)p[i].addr, p[i].data, PAGE);
		else if (!p[i].past_end)
			memset((void *)p[i].addr, 0, PAGE);
	}
	return NULL;
}

static const char *map_again(const struct replay_input *in, uint32_t tid, const long a[6],
			     const struct replay_event *e, long *result, char *why, size_t whylen)
{
	uint64_t start = (uint64_t)e->result, end = start + page_up((uint64_t)a[1]);
	if (!held(in, start, end))
		return not_the_apps("mmap", start, end, why, whylen);
	/* Writable, the recorded contents go in first: anonymous, or for a view of a shared
	 * file, the file's memory file (shared_files.h). */
	int memfd = shared_file_flags((uint64_t)a[3]) && e->mapped_path
			? shared_file_memfd(e->mapped_path)
			: -1;
	const long args[6] = {e->result,
			      a[1],
			      a[2] | PROT_WRITE,
			      memfd >= 0
				  ? MAP_SHARED | MAP_FIXED
				  : (a[3] & ~MAP_SHARED) | MAP_PRIVATE | MAP_FIXED | MAP_ANONYMOUS,
			      memfd,
			      memfd >= 0 ? a[5] : 0};
	*result = jit_app_memory_syscall(SYS_mmap, args);
	if (*result != e->result)
		return NULL;
	const char *bad = inject_writes(e, why, whylen);
	if (!bad)
		bad = put_mmap_pages(in, tid, e->icount, start, end, why, whylen);
	if (!bad && !(a[2] & PROT_WRITE)) {
		const long prot[6] = {*result, a[1], a[2]};
		jit_app_memory_syscall(SYS_mprotect, prot);
	}
	if (!bad && e->mapped_path) /* the file's name, for debuggers and symbol alarms */
		jit_app_map_adopt(&(struct jit_app_mapping){
		    start, end, (uint32_t)a[2], (uint32_t)a[3], (uint64_t)a[5], e->mapped_path});
	return bad;
}

const char *inject_advice(const long a[6], const struct replay_event *e, char *why, size_t whylen)
{
	if (e->result != 0 || (a[2] != MADV_DONTNEED && a[2] != MADV_REMOVE))
		return inject_writes(e, why, whylen);
	uint64_t start = (uint64_t)a[0], end = start + page_up((uint64_t)a[1]);
	if (end < start || !app_covers(start, end, 0))
		return not_the_apps("madvise", start, end, why, whylen);
	/* Private pages zeroed, a shared file's hole punched; file pages come back as the
	 * recorded writes. Refused for a private copy of a shared view (MADV_REMOVE): the
	 * recorded writes hold its zeros. */
	rt_syscall3(SYS_madvise, a[0], a[1], a[2]);
	return inject_writes(e, why, whylen);
}

const char *inject_memory_change(const struct replay_input *in, uint32_t tid, long nr,
				 const long a[6], const struct replay_event *e, long *result,
				 char *why, size_t whylen)
{
	*result = e->result;
	if (e->result < 0 && e->result > -4096)
		return NULL; /* failed in the recording: fails here too */
	uint64_t start = (uint64_t)a[0], end = start + page_up((uint64_t)a[1]);
	switch (nr) {
	case SYS_mmap:
		return map_again(in, tid, a, e, result, why, whylen);
	case SYS_mremap:
		return remap(in, a, e, result, why, whylen);
	case SYS_munmap:
		if (end < start)
			return not_the_apps("munmap", start, end, why, whylen);
		*result = unmap_app_pieces(start, end);
		return NULL;
	case SYS_mprotect: /* it succeeded: every page was mapped */
		if (end < start || !app_covers(start, end, 0))
			return not_the_apps("mprotect", start, end, why, whylen);
		break;
	}
	*result = jit_app_memory_syscall(nr, a);
	return NULL;
}

/* What a region records of each thread's system calls: number, arguments, result, every
 * byte the kernel wrote to app memory (from the syscall model), what reached the logger's
 * stdout and stderr, and thread creations and exits. App threads, TLS-free. */
#include <errno.h>
#include <linux/sched.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>

#include "first_touch.h"
#include "jit_app.h"
#include "jit_messages.h"
#include "mapped_changes.h"
#include "output_echo.h"
#include "recorder_internal.h"
#include "rt_alloc.h"
#include "syscall_model.h"

static void warn_once(long nr, const char *fmt, const char *what)
{
	if (nr < 0 || nr >= 512 || rec.unmodelled_seen[nr])
		return;
	rec.unmodelled_seen[nr] = true;
	const char *name = syscall_name(nr);
	jit_message(fmt, name ? name : "?", what);
}

/* Copies what can be read of [addr, addr+len) as writes: a range may run into pages that
 * cannot be read (a file mapping past the file's end); those are left out. Returns the new
 * number of writes. w has room for one write per readable run. */
static size_t copy_readable(struct pinball_mem_write *w, size_t kept, uint8_t **bytes,
			    uint64_t addr, uint64_t len)
{
	if (jit_copy_app_memory(*bytes, addr, len) == 0) {
		w[kept++] = (struct pinball_mem_write){addr, *bytes, len};
		*bytes += len;
		return kept;
	}
	uint64_t end = addr + len;
	while (addr < end) {
		uint64_t chunk = PAGE - (addr & (PAGE - 1));
		if (chunk > end - addr)
			chunk = end - addr;
		if (jit_copy_app_memory(*bytes, addr, chunk) == 0) {
			/* extend the previous write when contiguous */
			if (kept && w[kept - 1].addr + w[kept - 1].len == addr)
				w[kept - 1].len += chunk;
			else
				w[kept++] = (struct pinball_mem_write){addr, *bytes, chunk};
			*bytes += chunk;
		}
		addr += chunk;
	}
	return kept;
}

/* What of a call reached the logger's stdout or stderr, and writes the model does not
 * know (what a thread's exit does to its robust futexes and clear_child_tid word). */
struct extra {
	uint32_t stream;      /* 1, 2; 0: nothing */
	const uint8_t *bytes; /* moved inside the kernel (NULL: they are in app memory) */
	size_t len;
	const struct pinball_mem_write *writes;
	size_t nwrites;
	const char *path; /* an mmap's file (NULL: none) */
	bool lazy_file;	  /* its contents come as the region touches them (first_touch.h) */
};

static struct record *new_event(struct jit_thread *t, enum pinball_event_kind kind, size_t extra)
{
	struct record *r = must_new(REC_EVENT, extra);
	r->u.event.tid = jit_thread_id(t);
	r->u.event.ev = (struct pinball_event){.icount = region_icount(t), .kind = kind};
	return r;
}

static void record_syscall_extra(struct jit_thread *t, long nr, const long args[6], long result,
				 const struct extra *x)
{
	struct mem_range writes[SYSCALL_MAX_RANGES + MAPPED_CHANGES_MAX];
	int n = x->lazy_file ? 0 : syscall_writes(nr, args, result, writes);
	if (n < 0)
		warn_once(nr,
			  "warning: syscall %s is not modelled for these arguments: what it writes "
			  "to memory is not recorded (the replayer will say so)%s",
			  "");
	n = n < 0 ? 0 : n;
	n += mapped_changes(nr, args, result, writes + n);
	size_t path_len = x->path ? strlen(x->path) + 1 : 0;
	size_t data = x->len + path_len;
	for (int i = 0; i < n; i++)
		data += writes[i].len;
	for (size_t i = 0; i < x->nwrites; i++)
		data += x->writes[i].len;
	/* Room for every range split into readable runs (at worst one per other page). */
	size_t slots = (size_t)(n > 0 ? n : 0) + x->nwrites + data / PAGE + 2;
	struct record *r =
	    new_event(t, PINBALL_EV_SYSCALL, slots * sizeof(struct pinball_mem_write) + data);
	struct pinball_mem_write *w = (struct pinball_mem_write *)r->data;
	uint8_t *bytes = r->data + slots * sizeof *w;
	size_t kept = 0;
	for (int i = 0; i < n; i++)
		kept = copy_readable(w, kept, &bytes, writes[i].addr, writes[i].len);
	for (size_t i = 0; i < x->nwrites; i++) {
		memcpy(bytes, x->writes[i].data, x->writes[i].len);
		w[kept++] = (struct pinball_mem_write){x->writes[i].addr, bytes, x->writes[i].len};
		bytes += x->writes[i].len;
	}
	r->u.event.ev.syscall.nr = (uint64_t)nr;
	for (int i = 0; i < 6; i++)
		r->u.event.ev.syscall.args[i] = (uint64_t)args[i];
	r->u.event.ev.syscall.result = result;
	r->u.event.ev.syscall.nwrites = kept;
	r->u.event.ev.syscall.writes = w;
	r->u.event.ev.syscall.echo = x->stream;
	r->u.event.ev.syscall.output_checked =
	    syscall_output_crc(nr, args, result, &r->u.event.ev.syscall.output_crc);
	if (x->len) {
		memcpy(bytes, x->bytes, x->len);
		r->u.event.ev.syscall.output = bytes;
		r->u.event.ev.syscall.output_len = x->len;
		bytes += x->len;
	}
	if (path_len) {
		memcpy(bytes, x->path, path_len);
		r->u.event.ev.syscall.mapped_path = (const char *)bytes;
	}
	uint64_t icount = r->u.event.ev.icount;
	record_push(r);
	if (x->lazy_file)
		first_touch_watch_mapping(
		    (uint64_t)result,
		    (uint64_t)result + (((uint64_t)args[1] + PAGE - 1) & ~(uint64_t)(PAGE - 1)),
		    (uint32_t)args[2], jit_thread_id(t), icount);
}

/* The tid words a thread's clone has the kernel write (CLONE_PARENT_SETTID, and
 * CLONE_CHILD_SETTID: the same memory) hold the child's tid from the clone on, before the
 * child runs. Read back after the call they may not: the kernel writes the child's word
 * when the child first runs, and a child that already exited inside the region zeroed
 * them. Returns how many of w (2) are set. */
static size_t clone_tid_writes(long nr, const long a[6], long result, const uint32_t *tid,
			       struct pinball_mem_write w[2])
{
	struct {
		uint64_t flags, pidfd, child_tid, parent_tid;
	} c = {(uint64_t)a[0], 0, (uint64_t)a[3], (uint64_t)a[2]};
	if (result <= 0 || (nr != SYS_clone && nr != SYS_clone3) ||
	    (nr == SYS_clone3 && jit_copy_app_memory(&c, (uint64_t)a[0], sizeof c)))
		return 0;
	if (!(c.flags & CLONE_THREAD))
		return 0;
	size_t n = 0;
	if (c.flags & CLONE_PARENT_SETTID)
		w[n++] = (struct pinball_mem_write){c.parent_tid, (const uint8_t *)tid, 4};
	if (c.flags & CLONE_CHILD_SETTID)
		w[n++] = (struct pinball_mem_write){c.child_tid, (const uint8_t *)tid, 4};
	return n;
}

struct path_query {
	uint64_t start;
	const char *path;
};

static int path_at(const struct jit_app_mapping *m, void *arg)
{
	struct path_query *q = arg;
	if (m->start != q->start)
		return 0;
	q->path = m->path;
	return 1;
}

/* The file a successful mmap mapped, as the runtime's map of the app names it: a replay
 * maps the recorded bytes instead, and keeps the name for debuggers (gdb's library list). */
static const char *mapped_file(long nr, const long a[6], long result)
{
	if (nr != SYS_mmap || (a[3] & MAP_ANONYMOUS) || a[4] < 0 ||
	    (unsigned long)result >= -4096ul)
		return NULL;
	struct path_query q = {(uint64_t)result, NULL};
	jit_app_map_foreach(path_at, &q);
	return q.path && q.path[0] == '/' ? q.path : NULL;
}

/* A call as the kernel made it; what it wrote from app memory to the logger's stdout or
 * stderr is marked for the replay's echo. */
void record_syscall(struct jit_thread *t, long nr, const long args[6], long result)
{
	int fd_arg;
	struct extra x = {0};
	const uint32_t child_tid = (uint32_t)result;
	struct pinball_mem_write tid_writes[2];
	x.writes = tid_writes; /* applied after the model's copies of the same words */
	x.nwrites = clone_tid_writes(nr, args, result, &child_tid, tid_writes);
	x.path = mapped_file(nr, args, result);
	/* In first-touch mode a readable file mapping is recorded as the region touches it
	 * (a library's untouched pages cost nothing), not whole now. */
	x.lazy_file = x.path && !rec.fat && (args[2] & PROT_READ);
	enum syscall_output output = syscall_output(nr, &fd_arg);
	if (result > 0 && output != SYSCALL_OUTPUT_NONE)
		x.stream = output_echo_stream((int)args[fd_arg]);
	if (x.stream && output == SYSCALL_OUTPUT_KERNEL) {
		/* a copy the recorder could not make itself (tee) */
		warn_once(nr, "warning: syscall %s to the logger's %s is not echoed by replays",
			  x.stream == 1 ? "stdout" : "stderr");
		x.stream = 0;
	}
	record_syscall_extra(t, nr, args, result, &x);
}

bool record_echoed_copy(struct jit_thread *t, long nr, const long args[6])
{
	enum { CHUNK = 256 * 1024 };
	int fd_arg;
	if (syscall_output(nr, &fd_arg) != SYSCALL_OUTPUT_KERNEL)
		return false;
	uint32_t stream = output_echo_stream((int)args[fd_arg]);
	if (!stream)
		return false;
	uint8_t *buf = rt_alloc(CHUNK);
	if (!buf)
		jit_fatal("out of memory while recording");
	long result;
	bool done = output_echo_copy(nr, args, buf, CHUNK, &result);
	if (done) {
		struct extra x = {
		    .stream = stream, .bytes = buf, .len = result > 0 ? (size_t)result : 0};
		record_syscall_extra(t, nr, args, result, &x);
		jit_thread_set_gpr(t, JIT_GPR_RAX, (uint64_t)result);
	}
	rt_free(buf);
	return done;
}

void record_refused(struct jit_thread *t, long nr, const long args[6])
{
	warn_once(nr,
		  "warning: syscall %s fails with ENOSYS inside a recorded region: its effects "
		  "cannot be recorded%s",
		  "");
	record_syscall(t, nr, args, -ENOSYS);
	jit_thread_set_gpr(t, JIT_GPR_RAX, (uint64_t)-ENOSYS);
}

void record_thread_exit(struct jit_thread *t, const long args[6],
			const struct pinball_mem_write *writes, size_t nwrites)
{
	struct extra x = {.writes = writes, .nwrites = nwrites};
	record_syscall_extra(t, SYS_exit, args, 0, &x);
}

void record_thread_create(struct jit_thread *parent, uint32_t child_tid, uint64_t flags)
{
	struct record *r = new_event(parent, PINBALL_EV_THREAD_CREATE, 0);
	r->u.event.ev.thread_create.child_tid = child_tid;
	r->u.event.ev.thread_create.clone_flags = flags;
	record_push(r);
}

/* Before the kernel sees the app's memory, the pages it will use must be accessible: the
 * buffers the model knows, and (for pointers without a known size, such as paths) the page
 * of every argument that points into withheld memory and the next page. */
void prepare_memory(long nr, const long a[6])
{
	switch (nr) {
	case SYS_mprotect: /* the app's new protection replaces ours: record first */
	case SYS_mremap:
		first_touch_range((uint64_t)a[0], (uint64_t)a[1]);
		break;
	case SYS_munmap:
		first_touch_forget((uint64_t)a[0], (uint64_t)a[1]);
		break;
	case SYS_mmap:
		if (a[3] & MAP_FIXED)
			first_touch_forget((uint64_t)a[0], (uint64_t)a[1]);
		break;
	default:
		break;
	}
	struct mem_range ranges[SYSCALL_MAX_RANGES];
	int n = syscall_accesses(nr, a, ranges);
	for (int i = 0; i < n; i++)
		first_touch_range(ranges[i].addr, ranges[i].len);
	for (int i = 0; i < 6; i++)
		first_touch_range((uint64_t)a[i], 2 * PAGE - ((uint64_t)a[i] & (PAGE - 1)));
}

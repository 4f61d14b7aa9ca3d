#include "writer_thread.h"

#include <errno.h>
#include <limits.h>
#include <malloc.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "jit.h"
#include "jit_messages.h"
#include "record_queue.h"

static struct pinball_header template;
/* Set before the app runs: the queue orders them before the records that use them. */
static const char *chunk_cache;
static bool report_chunk_cache;

void writer_thread_set_chunk_cache(const char *dir, bool report)
{
	chunk_cache = dir;
	report_chunk_cache = report && dir;
}
static uint64_t finished_bytes, current_bytes; /* atomic: for writer_thread_bytes */

uint64_t writer_thread_bytes(void)
{
	return __atomic_load_n(&finished_bytes, __ATOMIC_RELAXED) +
	       __atomic_load_n(&current_bytes, __ATOMIC_RELAXED);
}

struct writer_state {
	struct pinball_writer *w;
	char error[PINBALL_ERR_MAX];
	char base[256];
	char start[128];   /* what started the region */
	char written[640]; /* what the user is told of a finished pinball */
	uint32_t threads;  /* that took part: each has an end state */
	/* FINISH records among those popped and not yet written: the app waits for the
	 * pinball, so what is left of its pages is packed at the faster level */
	uint32_t finishes_due;
};

static void fail(struct writer_state *s, const char *msg)
{
	if (!s->error[0])
		snprintf(s->error, sizeof s->error, "%s", msg);
}

static void describe_cause(char *buf, size_t cap, const struct pinball_cause *c)
{
	snprintf(buf, cap, "%s%s%s", c->kind ? c->kind : "", c->spec && *c->spec ? " " : "",
		 c->spec ? c->spec : "");
}

/* "pb/run.0: 1207654 instructions in 1 thread, 3.1 MiB, from control default-start to
 * exec execve" */
static void describe_written(struct writer_state *s, const struct pinball_cause *stop)
{
	const struct pinball_summary *sum = pinball_writer_summary(s->w);
	char size[32], end[128];
	describe_cause(end, sizeof end, stop);
	snprintf(s->written, sizeof s->written,
		 "%s: %llu instructions in %u thread%s, %s, from %s to %s", s->base,
		 (unsigned long long)sum->instructions, s->threads, s->threads == 1 ? "" : "s",
		 pinball_human_size(pinball_writer_file_bytes(s->w), size, sizeof size), s->start,
		 end);
}

static void begin(struct writer_state *s, const struct record *r)
{
	s->error[0] = '\0';
	struct pinball_header hdr = template;
	hdr.region_start = r->u.begin.cause;
	hdr.nsigactions = r->u.begin.nsigactions;
	hdr.sigactions = r->u.begin.sigactions;
	hdr.sigstack = r->u.begin.sigstack;
	s->threads = 0;
	snprintf(s->base, sizeof s->base, "%s", r->u.begin.basename);
	describe_cause(s->start, sizeof s->start, &r->u.begin.cause);
	char err[PINBALL_ERR_MAX];
	s->w = pinball_writer_create(r->u.begin.basename, &hdr, err);
	if (!s->w)
		fail(s, err);
	else if (chunk_cache)
		pinball_writer_set_chunk_cache(s->w, chunk_cache);
}

static void report_chunks(const struct writer_state *s)
{
	unsigned long looked, found;
	pinball_chunk_cache_counts(&looked, &found);
	if (report_chunk_cache)
		jit_message("pinball stats: %s: page chunks taken from the run's cache %lu of %lu "
			    "(this process's)",
			    s->base, found, looked);
}

/* Writes one record; the first failure is kept and later records are dropped. */
static void write_record(struct writer_state *s, const struct record *r)
{
	if (r->kind == REC_BEGIN) {
		begin(s, r);
		return;
	}
	if (r->kind == REC_ABORT) {
		pinball_writer_free(s->w); /* removes the temporary files */
		s->w = NULL;
		record_queue_report_done("", "");
		return;
	}
	if (s->finishes_due && s->w)
		pinball_writer_hurry(s->w);
	if (r->kind == REC_FINISH) {
		s->finishes_due--;
		if (s->w)
			pinball_writer_set_ignored_events(s->w, r->u.finish.ignored_events);
		if (s->w && !s->error[0] && pinball_writer_finish(s->w, &r->u.finish.cause))
			fail(s, pinball_writer_error(s->w));
		if (!s->w)
			fail(s, "no pinball was started");
		s->written[0] = '\0';
		if (!s->error[0]) {
			describe_written(s, &r->u.finish.cause);
			__atomic_add_fetch(&finished_bytes, pinball_writer_file_bytes(s->w),
					   __ATOMIC_RELAXED);
			report_chunks(s);
		}
		__atomic_store_n(&current_bytes, 0, __ATOMIC_RELAXED);
		pinball_writer_free(s->w);
		s->w = NULL;
		record_queue_report_done(s->error, s->written);
		return;
	}
	if (!s->w || s->error[0])
		return;
	int rc = 0;
	switch (r->kind) {
	case REC_THREAD:
		rc = pinball_writer_add_thread(s->w, &r->u.thread);
		break;
	case REC_MAP:
		rc = pinball_writer_add_map(s->w, &r->u.map);
		break;
	case REC_PAGE:
		if (r->u.page.past_end) {
			rc = pinball_writer_add_past_end_page(
			    s->w, &(struct pinball_page){.addr = r->u.page.addr,
							 .prot = r->u.page.prot,
							 .at_mmap = r->u.page.at_mmap,
							 .mmap_tid = r->u.page.mmap_tid,
							 .mmap_icount = r->u.page.mmap_icount});
			break;
		}
		if (r->u.page.at_mmap) {
			rc = pinball_writer_add_mmap_page(s->w, r->u.page.addr, r->u.page.prot,
							  r->u.page.data, r->u.page.mmap_tid,
							  r->u.page.mmap_icount);
			break;
		}
		rc = r->u.page.data
			 ? pinball_writer_add_page(s->w, r->u.page.addr, r->u.page.prot,
						   r->u.page.data)
			 : pinball_writer_add_zero_pages(s->w, r->u.page.addr, r->u.page.prot,
							 r->u.page.zero_pages);
		break;
	case REC_EVENT:
		rc = pinball_writer_add_event(s->w, r->u.event.tid, &r->u.event.ev);
		break;
	case REC_SLICE:
		rc = pinball_writer_add_slice(s->w, &r->u.slice);
		break;
	case REC_END:
		s->threads++;
		rc = pinball_writer_add_end(s->w, &r->u.thread);
		break;
	default:
		break;
	}
	if (rc)
		fail(s, pinball_writer_error(s->w));
	__atomic_store_n(&current_bytes, pinball_writer_file_bytes(s->w), __ATOMIC_RELAXED);
}

static void *writer_main(void *arg)
{
	(void)arg;
	static struct writer_state state;
	for (;;) {
		struct record *r = record_pop_all();
		for (const struct record *at = r; at; at = at->next)
			state.finishes_due += at->kind == REC_FINISH;
		while (r && !record_queue_abort_requested()) {
			struct record *next = r->next;
			write_record(&state, r);
			record_release(r);
			r = next;
		}
		if (record_queue_abort_requested()) {
			/* the process dies: its unfinished pinball goes with it */
			pinball_writer_free(state.w);
			state.w = NULL;
			record_queue_report_aborted();
			return NULL;
		}
	}
	return NULL;
}

int writer_thread_start(const struct pinball_header *header, char *err, size_t errlen)
{
	template = *header;
	/* The writer's memory (zstd's tables, the chunks) from the logger's own heap, not
	 * from mmap: its mappings, made while the app's dynamic loader maps the libraries,
	 * moved them by chance, and a recording kept with -jit:persist found its libraries'
	 * translations elsewhere (the second recording of /bin/true translated 184 of its
	 * fragments anew in about a third of the runs). Set before any thread has an arena. */
	mallopt(M_ARENA_MAX, 1);
	mallopt(M_MMAP_THRESHOLD, 32 << 20);
	pinball_set_thread_starter(jit_helper_thread_start); /* (its chunk helper's too) */
	int rc = jit_helper_thread_start(writer_main, NULL);
	if (rc) {
		snprintf(err, errlen, "cannot start the pinball writer thread: %s", strerror(rc));
		return -1;
	}
	return 0;
}

/* Creates the directory that will hold the pinballs (like mkdir -p of the basename's). */
int writer_make_parent_dirs(const char *basename)
{
	char dir[PATH_MAX];
	snprintf(dir, sizeof dir, "%s", basename);
	char *slash = strrchr(dir, '/');
	if (!slash)
		return 0;
	*slash = '\0';
	for (char *p = dir + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(dir, 0755) && errno != EEXIST)
			return -1;
		*p = '/';
	}
	return mkdir(dir, 0755) && errno != EEXIST ? -1 : 0;
}

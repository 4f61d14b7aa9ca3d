/* Records travel from app threads to the pinball writer thread through this queue.
 *
 * App threads allocate a record (rt allocator), fill it, and push it: TLS-free, no
 * blocking except when too many bytes wait (then the producer sleeps until the writer
 * catches up, which bounds the logger's memory). The writer thread pops records in order,
 * writes them with the pinball library, and frees them. */
#ifndef LOGGER_RECORD_QUEUE_H
#define LOGGER_RECORD_QUEUE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pinball.h"

enum record_kind {
	REC_BEGIN,  /* a new pinball: basename and region start cause */
	REC_THREAD, /* a thread's state at region start */
	REC_MAP,
	REC_PAGE,
	REC_EVENT,
	REC_SLICE,
	REC_END,    /* a thread's state at region end */
	REC_FINISH, /* complete the pinball; the producer waits with record_queue_wait_done */
	REC_ABORT,  /* drop the unfinished pinball (its temporary files); waited for the same way */
};

struct record {
	struct record *next;
	enum record_kind kind;
	size_t size; /* bytes of the whole record, for the queue's bound */
	union {
		struct {
			const char *basename;
			struct pinball_cause cause;
			size_t nsigactions; /* the app's signal state at region start */
			const struct pinball_sigaction *sigactions;
			struct pinball_sigstack sigstack;
		} begin;
		struct pinball_thread thread; /* REC_THREAD and REC_END */
		struct pinball_map_entry map;
		struct {
			uint64_t addr;
			uint32_t prot;
			const uint8_t *data; /* NULL: zero_pages pages of zeros */
			uint64_t zero_pages;
			bool past_end;	      /* no data: past its file's end (pinball.h) */
			bool at_mmap;	      /* of a file mapping made in the region: */
			uint32_t mmap_tid;    /* by this thread's mmap */
			uint64_t mmap_icount; /* at this count */
		} page;
		struct {
			uint32_t tid;
			struct pinball_event ev;
		} event;
		struct pinball_slice slice;
		struct {
			struct pinball_cause cause;
			uint64_t ignored_events;
		} finish;
	} u;
	uint8_t *page;		     /* record_new_page's: a page of data apart from the record */
	_Alignas(16) uint8_t data[]; /* what the pointers above point at */
};

/* A record with `extra` bytes of data; NULL when memory is exhausted. */
struct record *record_new(enum record_kind kind, size_t extra);
/* A REC_PAGE record with its page (r->page, not zeroed: the caller fills it whole), or the
 * process ends with "out of memory while recording". */
struct record *record_new_page(void);
/* A record never pushed, freed. */
void record_discard(struct record *r);
void record_push(struct record *r);
/* record_new, or the process ends with "out of memory while recording" (app threads). */
struct record *must_new(enum record_kind kind, size_t extra);

/* Writer side. */
/* Blocks until something is queued (FIFO list), or returns NULL when an abort is asked. */
struct record *record_pop_all(void);
void record_release(struct record *r); /* frees it and lets waiting producers go on */

/* Completion of REC_FINISH: the writer reports, the producer waits. err is "" on success;
 * then `written` says what the pinball holds, for the user ("" after REC_ABORT). */
void record_queue_report_done(const char *err, const char *written);
const char *record_queue_wait_done(void);
const char *record_queue_written(void); /* of the completion record_queue_wait_done saw */

/* The process dies (of a signal) in a region: the writer drops the unfinished pinball at
 * once, without any record (the dying thread may hold any lock). Waits at most ms. Raw
 * system calls only: safe in a signal handler. */
void record_queue_abort_now(unsigned ms);
/* Writer side: whether to drop the pinball now, and saying it was. */
bool record_queue_abort_requested(void);
void record_queue_report_aborted(void);

#endif

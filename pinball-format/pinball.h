/* Pinball files: writing, reading and verifying them (docs/pinball-format.md).
 *
 * A pinball named P is the set of files P.meta, P.threads, P.memmap, P.pages, P.schedule,
 * P.end and one P.events.<tid> per thread. The API speaks plain C structs; no protobuf type
 * appears here.
 *
 * Errors: every function that can fail returns -1 (or NULL) and leaves one line of text,
 * without a trailing newline, in the object's error buffer (pinball_writer_error,
 * pinball_reader_error, pinball_cursor_error) or in the caller's `err` array for functions
 * that create an object. Reader errors name the file and the byte offset.
 *
 * Threads: these functions use glibc (malloc, stdio, errno) and must run on the driver's
 * own threads or helper threads, never on app threads. Objects are not thread-safe; one
 * thread uses one object at a time. App threads take their input from the feed
 * (pinball_feed.h), which is filled by a helper thread using this API. */
#ifndef PINBALL_H
#define PINBALL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define PINBALL_FORMAT_MAJOR 2
#define PINBALL_FORMAT_MINOR 1
/* The oldest major version readers still read (1.x: every part LZ4-compressed). */
#define PINBALL_FORMAT_OLDEST_MAJOR 1

#define PINBALL_ERR_MAX 512 /* size of every error buffer, NUL included */
#define PINBALL_ID_SIZE 16
#define PINBALL_GPR_COUNT 16

/* Register numbers of pinball_regs.gpr (the x86-64 encoding order). */
enum pinball_gpr {
	PINBALL_RAX,
	PINBALL_RCX,
	PINBALL_RDX,
	PINBALL_RBX,
	PINBALL_RSP,
	PINBALL_RBP,
	PINBALL_RSI,
	PINBALL_RDI,
	PINBALL_R8,
	PINBALL_R9,
	PINBALL_R10,
	PINBALL_R11,
	PINBALL_R12,
	PINBALL_R13,
	PINBALL_R14,
	PINBALL_R15,
};

/* ---- Records. Pointers in records returned by a reader stay valid until the next call on
 * the same cursor; pointers given to a writer are only read during the call. ---- */

struct pinball_cause {
	const char *kind; /* "control", "gdb", "exit", ... (NULL means "") */
	const char *spec; /* e.g. "start:ssc:11223344" */
	uint32_t tid;
	uint64_t icount;
};

struct pinball_cpuid_leaf {
	uint32_t leaf, subleaf, eax, ebx, ecx, edx;
};

struct pinball_xsave_component {
	uint32_t index, offset, size;
};

/* The app's action for a signal (the kernel's struct sigaction). */
struct pinball_sigaction {
	int32_t signo;
	uint64_t handler, flags, restorer, mask;
};

/* The app's alternate signal stack (flags: SS_DISABLE when there is none). */
struct pinball_sigstack {
	uint64_t sp;
	int32_t flags;
	uint64_t size;
};

struct pinball_header {
	uint16_t format_major, format_minor; /* set by the writer; filled by the reader */
	const char *tool_version;
	size_t argc;
	const char *const *argv;
	const char *cwd;
	uint32_t env_count;
	uint64_t env_bytes;
	const char *arch;
	const char *cpu_vendor;
	uint32_t cpu_family, cpu_model, cpu_stepping;
	size_t ncpuid;
	const struct pinball_cpuid_leaf *cpuid;
	uint64_t xcr0;
	uint32_t xsave_size;
	size_t nxsave_components;
	const struct pinball_xsave_component *xsave_components;
	uint32_t page_size; /* 0 means 4096 */
	uint64_t creation_time_ns;
	uint32_t pid;
	struct pinball_cause region_start;
	/* The app's signal state at region start: the actions other than the default (none in
	 * a pinball older than format 1.1), and the alternate stack. */
	size_t nsigactions;
	const struct pinball_sigaction *sigactions;
	struct pinball_sigstack sigstack;
};

struct pinball_regs {
	uint64_t gpr[PINBALL_GPR_COUNT]; /* indexed by enum pinball_gpr */
	uint64_t rip, rflags, fs_base, gs_base;
	const uint8_t *xsave; /* the whole xsave area */
	size_t xsave_len;
};

/* A thread's state: at region start (P.threads, icount 0) or end (P.end, icount = the
 * instructions it executed in the region). */
struct pinball_thread {
	uint32_t tid;
	uint64_t icount;
	struct pinball_regs regs;
	uint64_t signal_mask; /* blocked signals, bit signo-1 */
	/* Inside syscall syscall_nr (format 1.3): at region start, its return is the thread's
	 * first event; at region end, its return is after the region. Registers: those the
	 * syscall instruction leaves (rip after it, rax the number). */
	bool in_syscall;
	uint64_t syscall_nr;
	char name[16]; /* its comm (format 1.5; "": not recorded) */
};

struct pinball_map_entry {
	uint64_t start, end;
	uint32_t prot, flags;
	uint64_t offset;
	const char *path;
};

/* From a reader: either one page of data (data != NULL, npages == 1) or a run of npages
 * all-zero pages starting at addr (data == NULL). A page with at_mmap belongs to a file
 * mapping the region made, and goes in place when the replay makes it (format 1.6): by the
 * syscall event of thread mmap_tid at its count mmap_icount. A page past_end (format 2.1;
 * data NULL, npages 1) lay past the end of its mapped file: any access raises SIGBUS. */
struct pinball_page {
	uint64_t addr;
	uint32_t prot;
	const uint8_t *data;
	uint64_t npages;
	bool past_end;
	bool at_mmap;
	uint32_t mmap_tid;
	uint64_t mmap_icount;
};

struct pinball_mem_write {
	uint64_t addr;
	const uint8_t *data;
	size_t len;
};

enum pinball_event_kind {
	PINBALL_EV_SYSCALL = 2, /* values are the protobuf oneof field numbers */
	PINBALL_EV_INSN = 3,
	PINBALL_EV_SIGNAL = 4,
	PINBALL_EV_THREAD_CREATE = 5,
	PINBALL_EV_THREAD_EXIT = 6,
};

enum pinball_insn_kind {
	PINBALL_INSN_RDTSC = 1,
	PINBALL_INSN_RDTSCP,
	PINBALL_INSN_RDRAND,
	PINBALL_INSN_RDSEED,
	PINBALL_INSN_RDPID,
	PINBALL_INSN_CPUID,
	PINBALL_INSN_XGETBV,
};

struct pinball_event {
	uint64_t icount; /* the thread's instruction count when it happened */
	enum pinball_event_kind kind;
	union {
		struct {
			uint64_t nr;
			uint64_t args[6];
			int64_t result;
			size_t nwrites;
			const struct pinball_mem_write *writes; /* what the kernel wrote */
			/* 1: what the call wrote reached the logger's stdout; 2: its stderr
			 * (format 1.2; 0: neither, or an older pinball) */
			uint32_t echo;
			const uint8_t *output; /* bytes moved inside the kernel (sendfile...) */
			size_t output_len;
			bool output_checked; /* output_crc holds the CRC-32C of what it wrote */
			uint32_t output_crc;
			/* an mmap of a file: its path (format 1.5); "" or NULL: none */
			const char *mapped_path;
		} syscall;
		struct {
			enum pinball_insn_kind kind;
			uint64_t rax, rbx, rcx, rdx; /* registers the instruction wrote */
			uint64_t value;		     /* rdrand/rdseed/rdpid destination */
			uint32_t dest_reg;	     /* its enum pinball_gpr */
			bool cf;		     /* rdrand/rdseed success */
			uint32_t in_eax, in_ecx;     /* cpuid leaf/subleaf, xgetbv ecx */
		} insn;
		struct {
			int32_t signo;
			const uint8_t *siginfo;
			size_t siginfo_len;
		} signal;
		struct {
			uint32_t child_tid;
			uint64_t clone_flags;
		} thread_create;
		struct {
			int32_t status;
		} thread_exit;
	};
};

struct pinball_slice {
	uint32_t tid;
	uint64_t instructions;
};

/* ---- Writer: streaming, bounded memory (one chunk buffer per open part). Every part is
 * written as P.<part>.tmp-<pid>-<id>; pinball_writer_finish removes the old P.meta, renames
 * the parts, P.meta last, and then removes the parts of an older P that the new one does
 * not have, so that until it returns 0 no P.meta exists and readers refuse the pinball.
 * Creating a writer removes what killed writers left under the same name. ---- */

struct pinball_writer;

/* Where the writers' file descriptors go once opened, and how they are closed (a logger
 * moves them out of the app's way); by default they stay and close() closes them. Before
 * any writer is created. */
void pinball_set_fd_policy(int (*place)(int fd), int (*release)(int fd));

/* How a writer starts the thread that compresses beside it once hurried
 * (pinball_writer_hurry): a detached thread running fn(arg), 0 or an errno. By default a
 * plain pthread (a program whose signals are not the app's). Before any writer is
 * created. */
void pinball_set_thread_starter(int (*start)(void *(*fn)(void *arg), void *arg));

/* Starts a pinball named `basename` (a path prefix). Records go in any order across parts;
 * within a part they are kept in call order. `hdr` is copied. */
struct pinball_writer *pinball_writer_create(const char *basename, const struct pinball_header *hdr,
					     char err[PINBALL_ERR_MAX]);
int pinball_writer_add_thread(struct pinball_writer *w, const struct pinball_thread *t);
int pinball_writer_add_map(struct pinball_writer *w, const struct pinball_map_entry *m);
/* `data` is page_size bytes; consecutive all-zero pages with one prot become one record. */
int pinball_writer_add_page(struct pinball_writer *w, uint64_t addr, uint32_t prot,
			    const void *data);
/* A page of a file mapping the region made by thread tid's mmap at its count icount, as the
 * region first touched it (format 1.6): never merged with others. */
int pinball_writer_add_mmap_page(struct pinball_writer *w, uint64_t addr, uint32_t prot,
				 const void *data, uint32_t tid, uint64_t icount);
/* A page past the end of its mapped file (format 2.1): p's addr, prot, and at_mmap with
 * its mmap as pinball_writer_add_mmap_page's (p's data and npages are not used). */
int pinball_writer_add_past_end_page(struct pinball_writer *w, const struct pinball_page *p);
/* count pages of zeros from addr (a reservation the app never touched). */
int pinball_writer_add_zero_pages(struct pinball_writer *w, uint64_t addr, uint32_t prot,
				  uint64_t count);
int pinball_writer_add_event(struct pinball_writer *w, uint32_t tid, const struct pinball_event *e);
int pinball_writer_add_slice(struct pinball_writer *w, const struct pinball_slice *s);
int pinball_writer_add_end(struct pinball_writer *w, const struct pinball_thread *t);
/* Someone waits for the pinball (its region ended): the pages compressed from now on are
 * packed at a faster level (level 3 against 7: about 4% larger, in well under half the
 * time), two chunks at a time (pinball_set_thread_starter). The format does not change. */
void pinball_writer_hurry(struct pinball_writer *w);
/* Pages packed the same way by other writers of the run are taken from DIR, a directory of
 * the run's own that the caller removes at its end, and this writer leaves its chunks
 * there for them (chunk_cache.h): the pinball comes out as it would without. Before the
 * first page. */
void pinball_writer_set_chunk_cache(struct pinball_writer *w, const char *dir);
/* This process's chunks looked up in such a directory, and found there. */
void pinball_chunk_cache_counts(unsigned long *looked_up, unsigned long *found);
/* The controller events the logger ignored during the region (P.meta, format 1.3). */
void pinball_writer_set_ignored_events(struct pinball_writer *w, uint64_t count);
/* Flushes, syncs and renames every part into place; P.meta (with `stop`) comes last. */
int pinball_writer_finish(struct pinball_writer *w, const struct pinball_cause *stop);
const char *pinball_writer_error(const struct pinball_writer *w);
/* Frees the writer; unless finish succeeded, removes every temporary file. */
void pinball_writer_free(struct pinball_writer *w);
/* What was written (complete after a successful finish), and the bytes of its files so far
 * (P.meta included once finished). */
const struct pinball_summary *pinball_writer_summary(const struct pinball_writer *w);
uint64_t pinball_writer_file_bytes(const struct pinball_writer *w);

/* ---- Leftovers: files under a pinball's name that no finished pinball accounts for ---- */

struct pinball_leftovers {
	bool has_meta;	 /* P.meta exists */
	size_t parts;	 /* other final-named parts (without P.meta: an unfinished pinball) */
	size_t tmp_live; /* temporary files of a writer that still runs (live_pid) */
	long live_pid;
	size_t tmp_dead; /* temporary files of writers that are gone */
};
int pinball_leftovers(const char *basename, struct pinball_leftovers *out,
		      char err[PINBALL_ERR_MAX]);
/* Removes the temporary files of writers that are gone, and the parts no finished pinball
 * uses: with `keep` (part names, NULL-terminated), every part outside it; without, every
 * part when there is no P.meta. P.meta itself stays. Returns the number of files removed,
 * or -1 with err. */
int pinball_clean(const char *basename, const char *const *keep, char err[PINBALL_ERR_MAX]);
/* When P has no P.meta but leftovers, replaces err with what they are and what to do. */
void pinball_describe_unfinished(const char *basename, char err[PINBALL_ERR_MAX]);

/* ---- Reader ---- */

struct pinball_summary {
	uint32_t threads;
	uint64_t instructions, syscalls, nondet_insns, signals, thread_events;
	uint64_t data_pages, zero_pages, map_entries, slices;
};

struct pinball_part_info {
	const char *name; /* "pages", "events.1234", ... */
	uint64_t records, raw_bytes, stored_bytes, file_bytes;
	uint32_t chunks;
};

struct pinball_reader;

/* Reads P.meta and checks the header of every part it lists (magic, version, id, size). */
struct pinball_reader *pinball_reader_open(const char *basename, char err[PINBALL_ERR_MAX]);
void pinball_reader_close(struct pinball_reader *r);
const uint8_t *pinball_reader_id(const struct pinball_reader *r);
const struct pinball_header *pinball_reader_header(const struct pinball_reader *r);
const struct pinball_cause *pinball_reader_region_stop(const struct pinball_reader *r);
const struct pinball_summary *pinball_reader_summary(const struct pinball_reader *r);
uint64_t pinball_reader_ignored_events(const struct pinball_reader *r);
size_t pinball_reader_part_count(const struct pinball_reader *r);
const struct pinball_part_info *pinball_reader_part(const struct pinball_reader *r, size_t i);
/* The tids that have an events part, in P.meta's order; returns how many. */
size_t pinball_reader_event_tids(const struct pinball_reader *r, uint32_t *tids, size_t cap);

/* A cursor streams the records of one part ("threads", "memmap", "pages", "events.<tid>",
 * "schedule", "end"); use the next function of that part's type. Each returns 1 with a
 * record, 0 at the end of the part (after checking the part's trailer), -1 on error. */
struct pinball_cursor;
struct pinball_cursor *pinball_cursor_open(const struct pinball_reader *r, const char *part,
					   char err[PINBALL_ERR_MAX]);
int pinball_next_thread(struct pinball_cursor *c, struct pinball_thread *out); /* threads, end */
int pinball_next_map(struct pinball_cursor *c, struct pinball_map_entry *out);
int pinball_next_page(struct pinball_cursor *c, struct pinball_page *out);
int pinball_next_event(struct pinball_cursor *c, struct pinball_event *out);
int pinball_next_slice(struct pinball_cursor *c, struct pinball_slice *out);
const char *pinball_cursor_error(const struct pinball_cursor *c);
void pinball_cursor_close(struct pinball_cursor *c);

/* Reads every record of every part and checks them against P.meta. 0 when intact; else -1
 * with the first problem in err. */
int pinball_verify(const char *basename, char err[PINBALL_ERR_MAX]);
/* The same in one reading with a reader's own: after pinball_reader_check (before any
 * cursor is opened), every record a cursor returns has passed pinball_verify's checks of a
 * record (a record that fails is the cursor's error, worded as pinball_verify words it);
 * pinball_reader_checked then reads what no cursor read to its end, and makes the checks
 * across records and parts. 0, or -1 with the problem in err. A replayer acts on each
 * record as it comes, and on the whole only once pinball_reader_checked said 0. */
int pinball_reader_check(struct pinball_reader *r, char err[PINBALL_ERR_MAX]);
int pinball_reader_checked(struct pinball_reader *r, char err[PINBALL_ERR_MAX]);

/* What is wrong with an xsave image in standard format (len bytes) for the state components
 * xcr0 enables: NULL when XRSTOR would take it. */
const char *pinball_xsave_check(const uint8_t *xsave, size_t len, uint64_t xcr0);

/* Helpers for printing. */
const char *pinball_insn_name(enum pinball_insn_kind kind);
const char *pinball_event_name(enum pinball_event_kind kind);
/* "3.1 MiB" into buf. */
const char *pinball_human_size(uint64_t bytes, char *buf, size_t cap);

#endif

/* A pinball read into memory for replay: the memory, every thread's start and end state
 * and events, and the schedule. Built on the driver's main thread (glibc); read-only plain
 * data afterwards, so the replay client can use it on the app threads. */
#ifndef REPLAYER_REPLAY_INPUT_H
#define REPLAYER_REPLAY_INPUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pinball.h"

struct replay_event {
	enum pinball_event_kind kind;
	uint64_t icount;
	uint64_t nr, args[6];
	int64_t result;
	size_t nwrites;
	struct pinball_mem_write *writes; /* data owned by the input */
	uint32_t echo;			  /* 1: reached stdout, 2: stderr, 0: neither */
	uint8_t *output;		  /* bytes moved inside the kernel, owned */
	size_t output_len;
	bool output_checked; /* output_crc: the CRC-32C of what it wrote */
	uint32_t output_crc;
	char *mapped_path; /* an mmap of a file: the file's path (NULL: none), owned */
	struct {
		int32_t signo;
		uint8_t bytes[168]; /* siginfo (128), the action (32), the saved mask (8) */
		size_t len;
	} signal;
	struct {
		uint32_t kind, dest_reg, in_eax, in_ecx;
		uint64_t rax, rbx, rcx, rdx, value;
		bool cf;
	} insn;
	struct {
		uint32_t child_tid;
		uint64_t clone_flags;
	} create;
};

struct replay_regs {
	uint64_t gpr[PINBALL_GPR_COUNT], rip, rflags, fs_base;
	uint8_t *xsave;
	size_t xsave_len;
	uint64_t signal_mask;
};

/* A range of address space the replay holds for the app. */
struct replay_range {
	uint64_t start, end;
	uint32_t prot; /* RANGE_RECORDED: as recorded */
	enum { RANGE_RECORDED, RANGE_BRK_RESERVE, RANGE_CLAIM } kind;
};

/* One thread of the region: there at its start, or created in it. */
struct replay_thread {
	uint32_t tid;
	bool at_start;		  /* in P.threads; else created in the region */
	struct replay_regs start; /* at_start */
	bool start_in_syscall;	  /* its first event is the return of the syscall it was in */
	char name[16];		  /* at_start: its recorded name ("": none recorded) */
	struct replay_regs end;
	uint64_t end_icount;
	bool end_in_syscall; /* the region ended while it was inside a syscall */
	struct replay_event *events;
	size_t nevents;
};

/* A page of a file mapping the region made (format 1.6): put in place by the mmap event of
 * thread tid at its count icount. */
struct replay_mmap_page {
	uint32_t tid;
	uint64_t icount;
	uint64_t addr;
	const uint8_t *data; /* NULL: zeros, or past the end of its file */
	bool past_end;
};

struct replay_input {
	/* The recorded program's path, found as its argv[0] was (in the recorded working
	 * directory, or on this PATH), for a debugger; empty when it cannot be found. */
	char program[4096];
	struct replay_thread *threads; /* those at start first, in P.threads order */
	size_t nthreads;
	struct pinball_slice *slices; /* the schedule */
	size_t nslices;
	bool ends_at_exit; /* the region ended with the process (its last event is the exit) */
	/* The region ended with the app's death by this signal ("SIGSEGV"; "" when not): the
	 * replay ends where the dying thread stood, before its faulting instruction. */
	char death_signal[16];
	uint64_t brk_start, brk_current, brk_mapped_end;
	bool has_brk;
	struct replay_range *ranges; /* what the replay holds, in no particular order */
	size_t nranges, capranges;
	/* The app's signal state at region start (a pinball older than format 1.1 has none:
	 * has_signal_state is false and everything is the default). */
	bool has_signal_state;
	/* Which calls reached the recording's stdout and stderr is in the pinball (format
	 * 1.2); older ones: writes to fds 1 and 2 are taken for them. */
	bool has_echo_streams;
	struct pinball_sigaction sigactions[64];
	size_t nsigactions;
	struct pinball_sigstack sigstack;
	struct replay_mmap_page *mmap_pages; /* by tid, icount, addr */
	size_t nmmap_pages;
};

/* Opens pinball `basename`, maps its memory at the recorded addresses and reads the rest.
 * Returns 0; 2 with a one-line message in err for bad input; 3 when an address range of
 * the pinball is taken by the replayer itself (a fresh address-space layout may fix it). */
int replay_input_load(const char *basename, struct replay_input *in, char *err, size_t errlen);

/* The thread recorded as tid, or NULL. */
const struct replay_thread *replay_input_thread(const struct replay_input *in, uint32_t tid);

/* Room for one more element (of `size` bytes) after the n in array, whose capacity *cap
 * doubles from `first`: the array (moved, perhaps), or NULL when out of memory (the old
 * one stays). Loading's arrays, on the driver's thread. */
void *replay_input_grow(void *array, size_t n, size_t *cap, size_t size, size_t first);

/* Loading's failures: the message into err, `code` returned. */
int replay_input_fail(char *err, size_t errlen, int code, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

#endif

/* What the gdb stub (a helper thread, debugger/) and the app threads (this folder) share.
 *
 * All-stop: at most one app thread is "the stopper" at a time. It holds the world stopped
 * (and the runtime's lock) from a debugger callout, publishes why it stopped, and then
 * carries out the stub's requests one by one (registers, memory, breakpoints, monitor
 * commands) until one resumes the app. Every use of the JIT's API thus happens on an app
 * thread, under the lock, while nothing else runs; the stub only speaks the protocol.
 *
 * The channel lives in memory mapped shared before anything forks: under the replayer the
 * stub stays in the first process while the replay runs in its children, one at a time
 * (the live one), the others being checkpoints that wait to be copied (reverse execution,
 * debugger/stop/checkpoints.c). Words are shared futexes (ints); a stop or the end of the
 * process is also signalled on an eventfd, so that the stub can wait for it and for gdb's
 * bytes in one poll. */
#ifndef DEBUG_CHANNEL_H
#define DEBUG_CHANNEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "instrument.h"

enum {
	DBG_MAX_THREADS = 1024, /* threads gdb can see: numbers 0..1023, gdb ids 1..1024 */
	DBG_BUF_SIZE = 1 << 16, /* a request's data, in or out */
	DBG_MAX_ACTIONS = 16,	/* vCont actions of one resume */
	DBG_TEXT_SIZE = 4096,	/* a monitor command or its answer; the program path */
	DBG_MAX_BREAKPOINTS = 256,
	DBG_MAX_WATCHES = 16,
	DBG_MAX_CHECKPOINTS = 64,
	DBG_CKPT_THREADS = 256, /* threads whose counts a checkpoint keeps (gdb ids 1..256) */
};

/* Why the app stopped, or how it ended. */
enum dbg_stop_kind {
	DBG_STOP_SIGNAL,  /* a step, an interrupt, the first instruction, an app signal */
	DBG_STOP_SWBREAK, /* a breakpoint (SIGTRAP) */
	DBG_STOP_WATCH,	  /* after the write that hit a watchpoint */
	DBG_STOP_RWATCH,
	DBG_STOP_AWATCH,
	DBG_STOP_EXITED, /* the process exited with `status` */
	DBG_STOP_KILLED, /* the process dies of `signal` */
	/* Reverse execution (the stub's own runs, never reported as such to gdb): */
	DBG_STOP_GOAL,	  /* the goal of a resume was reached */
	DBG_STOP_ARRIVED, /* a process copied from a checkpoint is there */
	DBG_STOP_BEGIN,	  /* no history before this: the region's start (replaylog:begin) */
};

struct dbg_stop {
	enum dbg_stop_kind kind;
	uint32_t thread;     /* gdb's id: the JIT's thread number + 1 */
	int signal;	     /* host signal number (SIGTRAP for breakpoints and steps) */
	uint64_t icount, pc; /* where the thread stands: its count and the next instruction */
	uint64_t watch_addr;
	int status;
	bool libraries_changed; /* an image was mapped since the last stop */
};

enum dbg_op {
	DBG_OP_THREADS,	 /* out: struct dbg_thread_info[] of the live threads */
	DBG_OP_GET_REGS, /* thread; out: struct jit_regs then the xsave image */
	DBG_OP_SET_REGS, /* thread; in: the same */
	DBG_OP_READ,	 /* addr, len; out: the bytes (fewer when some are unreadable) */
	DBG_OP_WRITE,	 /* addr, len; in: the bytes */
	DBG_OP_BREAK,	 /* addr, insert */
	DBG_OP_WATCH,	 /* addr, len, kind (DBG_STOP_WATCH/RWATCH/AWATCH), insert */
	DBG_OP_MAP, /* out: the app's file mappings (struct dbg_mapping, then the path); text: the
		       program */
	DBG_OP_MONITOR,	 /* thread; text in, answer out (in text) */
	DBG_OP_RESUME,	 /* actions */
	DBG_OP_DETACH,	 /* gdb leaves: no more stops, everything runs */
	DBG_OP_KILL,	 /* the process ends (an unfinished pinball is removed) */
	DBG_OP_ABANDON,	 /* reverse execution: this copy of the replay ends, another goes on */
	DBG_OP_POSITION, /* thread; out: struct dbg_position */
};

/* Where a thread of the replay stands. */
struct dbg_position {
	uint64_t icount; /* its count at the instruction it runs next */
	uint64_t pc;	 /* that instruction */
	uint64_t total;	 /* every thread's count added up: the moment */
	uint64_t end;	 /* its count at the region's end (UINT64_MAX: not known) */
};

enum dbg_action { DBG_HOLD, DBG_CONTINUE, DBG_STEP };

struct dbg_resume_action {
	uint32_t thread; /* gdb's id; 0: every thread no other action names */
	enum dbg_action action;
	int signal; /* host signal to deliver as it goes on (0: none) */
};

/* How a resume treats breakpoints and watchpoints on the way. */
enum dbg_run_mode {
	DBG_RUN_NORMAL, /* a hit stops */
	DBG_RUN_SILENT, /* hits are ignored (the stub moves the replay to a moment) */
	DBG_RUN_SCAN,	/* hits are counted and the last one noted, without stopping */
};

/* Where a resume of a replay ends: when `thread` reaches `icount` (the first instruction
 * boundary at or after it); on the way, a checkpoint when it reaches `checkpoint_at`. */
struct dbg_goal {
	uint32_t thread; /* gdb's id; 0: no goal */
	uint64_t icount;
	uint64_t checkpoint_at; /* 0: none */
};

struct dbg_thread_info {
	uint32_t id;
	int32_t os_tid;
};

struct dbg_mapping {
	uint64_t start, end, offset;
	uint32_t prot;
	uint32_t path_len; /* bytes of the path after the record, with its NUL */
};

struct dbg_request {
	enum dbg_op op;
	uint32_t thread;
	uint64_t addr, len;
	int kind;
	bool insert;
	uint32_t nactions;
	struct dbg_resume_action actions[DBG_MAX_ACTIONS];
	enum dbg_run_mode mode; /* a resume's */
	struct dbg_goal goal;
	char text[DBG_TEXT_SIZE];
	bool failed; /* the answer is an error */
	size_t out_len;
	uint8_t buf[DBG_BUF_SIZE];
};

struct dbg_watch {
	uint64_t addr, len;
	enum dbg_stop_kind kind;
};

/* gdb's breakpoints and watchpoints, for whichever process replays (a copy made from an
 * older checkpoint translates again when `gen` changed since its copy). */
struct dbg_points {
	int gen;
	uint32_t nbreakpoints;
	uint64_t breakpoints[DBG_MAX_BREAKPOINTS]; /* sorted */
	uint32_t nwatches;
	struct dbg_watch watches[DBG_MAX_WATCHES];
};

/* A breakpoint or watchpoint hit: where it happened (before the instruction). */
struct dbg_hit {
	uint32_t thread;
	uint64_t icount, pc;
	enum dbg_stop_kind kind;
	uint64_t addr;
};

enum dbg_checkpoint_command { DBG_CKPT_WAIT, DBG_CKPT_COPY };

/* A checkpoint: a process that stopped at a moment of the replay and waits for the stub to
 * ask for a copy of itself, which then replays on from that moment (it is killed when no
 * longer wanted). */
struct dbg_checkpoint {
	int32_t pid;	 /* 0: a free slot */
	int command;	 /* futex word: enum dbg_checkpoint_command */
	bool extra;	 /* taken near a goal (the first to go when the table is full) */
	uint64_t taken;	 /* the order checkpoints were taken in */
	uint32_t thread; /* the thread that stood there (at the region's start: the first) */
	uint64_t icount, pc;
	uint64_t total; /* every thread's count added up: the checkpoints' order */
	uint64_t counts[DBG_CKPT_THREADS]; /* each thread's count there (0: not born yet) */
	uint32_t live_threads;		   /* the copy has them all (jit_thaw_threads) */
};

struct dbg_reverse {
	bool on;	   /* the replayer: reverse execution through checkpoints */
	uint64_t interval; /* instructions between two checkpoints (0: the region's start only) */
	int32_t stub_pid;  /* the first process, where the stub runs (every copy's parent) */
	int32_t live_pid;  /* the process that replays now */
	struct dbg_checkpoint checkpoints[DBG_MAX_CHECKPOINTS];
	uint64_t nhits;		 /* of the last DBG_RUN_SCAN resume */
	struct dbg_hit last_hit; /* the last of them */
	/* Per thread (gdb id - 1): the count up to which the app's output was echoed, so that
	 * a stretch replayed again after going back does not print it twice. */
	uint64_t echoed[DBG_MAX_THREADS];
};

struct dbg_channel {
	int stop_seq;  /* bumped for each stop or end an app thread publishes */
	int stop_sent; /* the stub's acknowledgement: stop_seq of the last one it sent */
	struct dbg_stop stop;
	int req_seq;  /* bumped by the stub for each request */
	int done_seq; /* req_seq of the last request carried out */
	struct dbg_request req;
	int event_fd;
	bool connected; /* the stub serves (gdb is attached or awaited); false once gdb left */
	bool attached;	/* gdb is attached: the process's end is reported to it */
	struct dbg_points points;
	struct dbg_reverse reverse;
};

/* Mapped shared by debugger_start before the app starts. */
extern struct dbg_channel *dbg_channel;

#endif

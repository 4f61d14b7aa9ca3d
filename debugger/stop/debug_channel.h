/* What the gdb stub (a helper thread, debugger/) and the app threads (this folder) share.
 *
 * All-stop: at most one app thread is "the stopper" at a time. It holds the world stopped
 * (and the runtime's lock) from a debugger callout, publishes why it stopped, and then
 * carries out the stub's requests one by one (registers, memory, breakpoints, monitor
 * commands) until one resumes the app. Every use of the JIT's API thus happens on an app
 * thread, under the lock, while nothing else runs; the stub only speaks the protocol.
 *
 * Words are futexes (ints); a stop or the end of the process is also signalled on an
 * eventfd, so that the stub can wait for it and for gdb's bytes in one poll. */
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
};

struct dbg_stop {
	enum dbg_stop_kind kind;
	uint32_t thread; /* gdb's id: the JIT's thread number + 1 */
	int signal;	 /* host signal number (SIGTRAP for breakpoints and steps) */
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
	DBG_OP_MONITOR, /* thread; text in, answer out (in text) */
	DBG_OP_RESUME,	/* actions */
	DBG_OP_DETACH,	/* gdb leaves: no more stops, everything runs */
	DBG_OP_KILL,	/* the process ends (an unfinished pinball is removed) */
};

enum dbg_action { DBG_HOLD, DBG_CONTINUE, DBG_STEP };

struct dbg_resume_action {
	uint32_t thread; /* gdb's id; 0: every thread no other action names */
	enum dbg_action action;
	int signal; /* host signal to deliver as it goes on (0: none) */
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
	char text[DBG_TEXT_SIZE];
	bool failed; /* the answer is an error */
	size_t out_len;
	uint8_t buf[DBG_BUF_SIZE];
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
};

extern struct dbg_channel dbg_channel;

#endif

/* The stub's requests, carried out by the stopper while it holds the world stopped. */
#include <limits.h>
#include <string.h>

#include "jit_app.h"
#include "jit_messages.h"
#include "rt_format.h"
#include "rt_syscall.h"
#include "stop_internal.h"

static bool list_threads(struct dbg_request *r)
{
	struct dbg_thread_info *out = (struct dbg_thread_info *)r->buf;
	size_t n = 0;
	for (uint32_t i = 0; i < DBG_MAX_THREADS && (n + 1) * sizeof *out <= sizeof r->buf; i++) {
		const struct dbg_thread *ts = dbg_thread_by_id(i + 1);
		if (ts)
			out[n++] = (struct dbg_thread_info){ts->id, jit_thread_os_tid(ts->jt)};
	}
	r->out_len = n * sizeof *out;
	return true;
}

static bool get_regs(struct dbg_request *r, struct dbg_thread *ts)
{
	struct jit_regs regs;
	jit_thread_get_regs(ts->jt, &regs);
	size_t xlen;
	const uint8_t *xsave = jit_thread_xsave(ts->jt, &xlen);
	if (sizeof regs + xlen > sizeof r->buf)
		return false;
	memcpy(r->buf, &regs, sizeof regs);
	memcpy(r->buf + sizeof regs, xsave, xlen);
	r->out_len = sizeof regs + xlen;
	return true;
}

/* A thread that waits elsewhere than in the debugger's callouts (at a block boundary for
 * the lock, in a syscall) goes on where it was: its rip cannot change. */
static bool set_regs(struct dbg_request *r, struct dbg_thread *ts)
{
	struct jit_regs now, want;
	size_t xlen;
	jit_thread_get_regs(ts->jt, &now);
	jit_thread_xsave(ts->jt, &xlen);
	if (r->len != sizeof want + xlen)
		return false;
	memcpy(&want, r->buf, sizeof want);
	if (want.rip != now.rip && !ts->parked)
		return false;
	jit_thread_set_regs(ts->jt, &want);
	jit_thread_set_xsave(ts->jt, r->buf + sizeof want, xlen);
	return true;
}

/* As many bytes as can be read from addr on (gdb reads across the end of a mapping). */
static bool read_memory(struct dbg_request *r)
{
	size_t len = r->len < sizeof r->buf ? r->len : sizeof r->buf;
	size_t done = 0;
	while (done < len) {
		size_t chunk = 0x1000 - ((r->addr + done) & 0xfff);
		if (chunk > len - done)
			chunk = len - done;
		if (!jit_read_app_memory(r->buf + done, r->addr + done, chunk))
			break;
		done += chunk;
	}
	r->out_len = done;
	return done > 0 || len == 0;
}

static int pack_mapping(const struct jit_app_mapping *m, void *arg)
{
	struct dbg_request *r = arg;
	if (!m->path || m->path[0] == '[')
		return 0;
	size_t plen = strlen(m->path) + 1;
	struct dbg_mapping rec = {m->start, m->end, m->offset, m->prot, (uint32_t)plen};
	if (r->out_len + sizeof rec + plen > sizeof r->buf)
		return 1;
	memcpy(r->buf + r->out_len, &rec, sizeof rec);
	memcpy(r->buf + r->out_len + sizeof rec, m->path, plen);
	r->out_len += sizeof rec + plen;
	return 0;
}

static void resume(const struct dbg_request *r)
{
	struct dbg_resume_action others = {0, DBG_HOLD, 0};
	for (uint32_t k = 0; k < r->nactions; k++)
		if (r->actions[k].thread == 0)
			others = r->actions[k];
	for (uint32_t i = 0; i < DBG_MAX_THREADS; i++) {
		struct dbg_thread *ts = dbg_thread_by_id(i + 1);
		if (!ts)
			continue;
		struct dbg_resume_action a = others;
		for (uint32_t k = 0; k < r->nactions; k++)
			if (r->actions[k].thread == ts->id)
				a = r->actions[k];
		ts->pass_signal = a.signal;
		ts->step = a.action == DBG_STEP ? STEP_ARMED : STEP_NONE;
		ts->step_anywhere = !ts->parked;
		ts->step_pc = ts->at_pc;
		ts->step_icount = ts->at_icount;
		ts->step_reason =
		    (struct dbg_stop){.kind = DBG_STOP_SIGNAL, .signal = 5 /* SIGTRAP */};
		__atomic_store_n(&ts->hold, a.action == DBG_HOLD, __ATOMIC_RELEASE);
		dbg_update_budget(ts);
	}
	dbg.hold_new = others.action == DBG_HOLD;
	__atomic_add_fetch(&dbg.hold_gen, 1, __ATOMIC_RELEASE);
	rt_futex_wake(&dbg.hold_gen, INT_MAX);
}

/* gdb left: nothing stops any more, every thread runs. */
static void detach(void)
{
	dbg_clear_all();
	dbg_channel.connected = false;
	struct dbg_request all = {.nactions = 1, .actions = {{0, DBG_CONTINUE, 0}}};
	resume(&all);
}

static uint64_t thread_icount(const struct dbg_thread *ts)
{
	return ts->parked ? ts->at_icount : jit_thread_icount(ts->jt);
}

static void monitor(const struct jit_callout *c, struct dbg_request *r, struct dbg_thread *ts)
{
	const char *cmd = r->text;
	char *out = r->text;
	size_t size = sizeof r->text;
	if (!strcmp(cmd, "record on") || !strcmp(cmd, "record off")) {
		bool on = !strcmp(cmd, "record on");
		char answer[DBG_TEXT_SIZE];
		if (dbg.hooks && dbg.hooks->record)
			dbg.hooks->record(c, on, answer, sizeof answer);
		else
			rt_format(answer, sizeof answer, "error: nothing is recorded here");
		rt_format(out, size, "%s\n", answer);
	} else if (!strcmp(cmd, "icount")) {
		rt_format(out, size, "thread %u: %lu instructions\n", ts->id, thread_icount(ts));
	} else if (!strcmp(cmd, "status")) {
		char line[DBG_TEXT_SIZE] = "";
		if (dbg.hooks && dbg.hooks->status)
			dbg.hooks->status(line, sizeof line);
		rt_format(out, size,
			  "%s\nthread %u stopped at 0x%lx, %u threads, %u breakpoints, %u "
			  "watchpoints\n",
			  line, dbg_thread_of(c->thread)->id, c->pc,
			  (unsigned)jit_thread_live_count(), dbg.nbreakpoints, dbg.nwatches);
	} else if (!strcmp(cmd, "help") || !cmd[0]) {
		rt_format(
		    out, size,
		    "monitor commands:\n"
		    "  record on    start recording a region here (a pinball)\n"
		    "  record off   end the region being recorded here\n"
		    "  icount       the selected thread's instruction count\n"
		    "  status       what is being recorded or replayed, threads, breakpoints\n"
		    "  help         this list\n");
	} else {
		r->failed = true;
		char copy[64];
		rt_format(copy, sizeof copy, "%s", cmd);
		rt_format(out, size, "unknown monitor command '%s' (try 'monitor help')\n", copy);
	}
}

static bool frozen(void)
{
	return dbg.hooks && dbg.hooks->frozen && dbg.hooks->frozen();
}

bool dbg_execute(const struct jit_callout *c, struct dbg_request *r)
{
	struct dbg_thread *ts = r->thread ? dbg_thread_by_id(r->thread) : dbg_thread_of(c->thread);
	r->failed = false;
	r->out_len = 0;
	switch (r->op) {
	case DBG_OP_THREADS:
		return list_threads(r);
	case DBG_OP_GET_REGS:
		r->failed = !ts || !get_regs(r, ts);
		return true;
	case DBG_OP_SET_REGS:
		r->failed = !ts || frozen() || !set_regs(r, ts);
		return true;
	case DBG_OP_READ:
		r->failed = !read_memory(r);
		return true;
	case DBG_OP_WRITE:
		r->failed = r->len > sizeof r->buf || frozen() ||
			    !jit_write_app_memory(r->addr, r->buf, r->len);
		return true;
	case DBG_OP_BREAK:
		r->failed = !dbg_set_breakpoint(r->addr, r->insert);
		return true;
	case DBG_OP_WATCH:
		r->failed = !dbg_set_watch(r->addr, r->len, (enum dbg_stop_kind)r->kind, r->insert);
		return true;
	case DBG_OP_MAP:
		rt_format(r->text, sizeof r->text, "%s",
			  jit_app_exe_path() ? jit_app_exe_path() : "");
		jit_app_map_foreach(pack_mapping, r);
		return true;
	case DBG_OP_MONITOR:
		if (!ts)
			ts = dbg_thread_of(c->thread);
		monitor(c, r, ts);
		return true;
	case DBG_OP_RESUME:
		resume(r);
		return false;
	case DBG_OP_DETACH:
		detach();
		return false;
	case DBG_OP_KILL:
		jit_message("the debugger killed the program");
		jit_abandon(128 + 9 /* as by SIGKILL */);
	}
	r->failed = true;
	return true;
}

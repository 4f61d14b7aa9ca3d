/* Reverse execution under the replayer: gdb's bs and bc packets, `monitor goto N` and
 * `monitor checkpoints`. A replay is deterministic, so "back" is "forward from a checkpoint":
 * the stub gives up the live copy of the replay, has a checkpoint before the target copied
 * (debugger/stop/checkpoints.c) and runs the copy to the target with the goal of a resume
 * (its thread's count; breakpoints ignored on the way). Every run here is the stub's own:
 * its stops are not sent to gdb, which hears only the last one.
 *
 * Moments: a thread's instruction count orders its own instruction boundaries (a REP string
 * instruction counts once per iteration, and may count 0); the total count, every thread's
 * added up, orders the moments of the replay (its threads run one at a time). */
#include <Zydis/Zydis.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "rt_syscall.h"
#include "stub_internal.h"

/* Going back, a run from a checkpoint farther than EXTRA_AFTER instructions from its goal
 * takes a checkpoint EXTRA_BEFORE instructions before the goal: the next steps back (gdb
 * takes many: reverse-next is reverse-stepi over a line) replay that much only. (Going
 * forward takes none: only the periodic ones.) */
enum { EXTRA_AFTER = 4 << 20, EXTRA_BEFORE = 1 << 20 };

static struct dbg_reverse *reverse(void)
{
	return &dbg_channel->reverse;
}

static bool position(uint32_t thread, struct dbg_position *p)
{
	struct dbg_request *r = stub_begin(DBG_OP_POSITION);
	r->thread = thread;
	if (!stub_call() || r->out_len != sizeof *p)
		return false;
	memcpy(p, r->buf, sizeof *p);
	return true;
}

/* Resumes the replay (every thread, or `thread` one step while the others go on) and
 * waits for its stop; false when the process ended instead. */
static bool run(struct stub *s, uint32_t step_thread, const struct dbg_goal *goal,
		enum dbg_run_mode mode)
{
	struct dbg_request *r = stub_begin(DBG_OP_RESUME);
	r->mode = mode;
	if (goal)
		r->goal = *goal;
	r->actions[r->nactions++] = (struct dbg_resume_action){0, DBG_CONTINUE, 0};
	if (step_thread)
		r->actions[r->nactions++] = (struct dbg_resume_action){step_thread, DBG_STEP, 0};
	s->stopped = false;
	stub_call();
	return stub_wait_stop(s);
}

/* The live copy of the replay ends; a copy of checkpoint k goes on from there. */
static bool activate(struct stub *s, int k)
{
	__atomic_store_n(&reverse()->live_pid, 0, __ATOMIC_RELEASE);
	stub_begin(DBG_OP_ABANDON);
	s->stopped = false;
	stub_call();
	struct dbg_checkpoint *ck = &reverse()->checkpoints[k];
	__atomic_store_n(&ck->command, DBG_CKPT_COPY, __ATOMIC_RELEASE);
	rt_futex_wake_shared(&ck->command, 1);
	return stub_wait_stop(s);
}

/* thread's count at checkpoint k (UINT64_MAX: not kept, unless at the region's start). */
static uint64_t count_at(const struct dbg_checkpoint *ck, uint32_t thread)
{
	if (thread >= 1 && thread <= DBG_CKPT_THREADS)
		return ck->counts[thread - 1];
	return ck->total ? UINT64_MAX : 0;
}

/* The latest checkpoint before the moment `before` (a total count) where `thread` has not
 * passed `icount` yet; -1 when none. */
static int checkpoint_before(uint32_t thread, uint64_t icount, uint64_t before)
{
	int best = -1;
	for (int k = 0; k < DBG_MAX_CHECKPOINTS; k++) {
		const struct dbg_checkpoint *ck = &reverse()->checkpoints[k];
		if (ck->pid > 0 && count_at(ck, thread) <= icount && ck->total < before &&
		    (best < 0 || ck->total > reverse()->checkpoints[best].total))
			best = k;
	}
	return best;
}

/* The replay where `thread` reaches `icount` (the first instruction boundary of it at or
 * after that count): forward from here if it is ahead, else from the checkpoint before. */
static bool move_to(struct stub *s, uint32_t thread, uint64_t icount)
{
	struct dbg_position now;
	bool here = position(thread, &now);
	if (here && now.icount == icount)
		return true;
	struct dbg_goal goal = {thread, icount, 0};
	if (!here || now.icount > icount) {
		int k = checkpoint_before(thread, icount, UINT64_MAX);
		if (k < 0)
			return false;
		if (icount - count_at(&reverse()->checkpoints[k], thread) > EXTRA_AFTER)
			goal.checkpoint_at = icount - EXTRA_BEFORE;
		if (!activate(s, k))
			return false;
	}
	return run(s, 0, &goal, DBG_RUN_SILENT) && s->stop.kind == DBG_STOP_GOAL;
}

/* The same, to the boundary at `pc` among those at `icount` (zero-iteration REP string
 * instructions share their count with the instruction after them). */
static bool move_to_exact(struct stub *s, uint32_t thread, uint64_t icount, uint64_t pc)
{
	if (!move_to(s, thread, icount))
		return false;
	while (s->stop.icount == icount && s->stop.pc != pc)
		if (!run(s, thread, NULL, DBG_RUN_SILENT))
			return false;
	return true;
}

static bool decode(uint64_t pc, size_t len, ZydisDecodedInstruction *insn)
{
	struct dbg_request *r = stub_begin(DBG_OP_READ);
	r->addr = pc;
	r->len = len;
	if (!stub_call() || !r->out_len)
		return false;
	ZydisDecoder d;
	ZydisDecoderInit(&d, ZYDIS_MACHINE_MODE_LONG_64, ZYDIS_STACK_WIDTH_64);
	return ZYAN_SUCCESS(ZydisDecoderDecodeInstruction(&d, NULL, r->buf, r->out_len, insn));
}

static bool rep_string(const ZydisDecodedInstruction *insn)
{
	return (insn->attributes &
		(ZYDIS_ATTRIB_HAS_REP | ZYDIS_ATTRIB_HAS_REPE | ZYDIS_ATTRIB_HAS_REPNE)) &&
	       insn->meta.category == ZYDIS_CATEGORY_STRINGOP;
}

/* Whether a REP string instruction ends right before pc (one that ran 0 times there
 * would be a boundary with pc's count). */
static bool rep_ends_at(uint64_t pc)
{
	ZydisDecodedInstruction insn;
	for (uint8_t len = 2; len <= ZYDIS_MAX_INSTRUCTION_LENGTH && len <= pc; len++)
		if (decode(pc - len, len, &insn) && insn.length == len && rep_string(&insn))
			return true;
	return false;
}

/* Whether the boundary after `before` (one count earlier) is `after`, without running: the
 * instruction at `before` counts one, and nothing of count 0 can sit between. */
static bool next_is(const struct dbg_stop *before, uint64_t after_pc)
{
	ZydisDecodedInstruction insn;
	if (!decode(before->pc, ZYDIS_MAX_INSTRUCTION_LENGTH, &insn) || rep_string(&insn))
		return false;
	if (insn.meta.branch_type == ZYDIS_BRANCH_TYPE_NONE &&
	    insn.meta.category != ZYDIS_CATEGORY_RET)
		return before->pc + insn.length == after_pc;
	return !rep_ends_at(after_pc);
}

/* The stop gdb hears after going back. */
static void report(struct stub *s, enum dbg_stop_kind kind, uint64_t addr)
{
	s->stop.kind = kind;
	s->stop.signal = SIGTRAP;
	s->stop.watch_addr = addr;
	s->stop.libraries_changed = false;
	stub_send_stop(s);
}

/* No history before here: the replay at the region's start (`move`), or where it is (a
 * thread at its first instruction). */
static bool at_begin(struct stub *s, bool move)
{
	for (int k = 0; move && k < DBG_MAX_CHECKPOINTS; k++)
		if (reverse()->checkpoints[k].pid > 0 && !reverse()->checkpoints[k].total) {
			if (!activate(s, k))
				return false;
			break;
		}
	report(s, DBG_STOP_BEGIN, 0);
	return true;
}

/* Whether a stop of the thread comes before its boundary at (icount, pc). */
static bool before(const struct dbg_stop *stop, const struct dbg_position *p)
{
	return stop->icount < p->icount || (stop->icount == p->icount && stop->pc != p->pc);
}

/* reverse-stepi: the boundary of `thread` just before the one it is at. A first try goes
 * one count back; a REP string instruction spanning that count sends the search farther
 * back, and the boundaries from there are stepped through. False when no stop was sent. */
static bool step_back(struct stub *s, uint32_t thread)
{
	struct dbg_position cur;
	if (!position(thread, &cur))
		return false;
	if (!cur.icount)
		return at_begin(s, false);
	for (uint64_t back = 1;; back *= 16) {
		uint64_t from = cur.icount > back ? cur.icount - back : 0;
		if (!move_to(s, thread, from))
			return false;
		struct dbg_stop last = s->stop;
		if (!before(&last, &cur)) {
			if (!from)
				return at_begin(s, false);
			continue;
		}
		if (last.icount + 1 == cur.icount && next_is(&last, cur.pc))
			break;
		for (;;) {
			if (!run(s, thread, NULL, DBG_RUN_SILENT))
				return false;
			if (!before(&s->stop, &cur))
				break;
			last = s->stop;
		}
		if (!move_to_exact(s, thread, last.icount, last.pc))
			return false;
		break;
	}
	report(s, DBG_STOP_SIGNAL, 0);
	return true;
}

/* reverse-continue: the last breakpoint or watchpoint hit before now, in any thread. Each
 * stretch between two checkpoints, latest first, is replayed while the hits are counted;
 * the replay then goes to the last hit of the first stretch that has one. */
static bool continue_back(struct stub *s)
{
	struct dbg_position now;
	if (!position(s->stop.thread, &now))
		return false;
	uint32_t end_thread = s->stop.thread;
	uint64_t end_icount = now.icount, end_total = now.total;
	for (;;) {
		int k = checkpoint_before(end_thread, end_icount, end_total);
		if (k < 0)
			return at_begin(s, true);
		struct dbg_checkpoint from = reverse()->checkpoints[k];
		if (!activate(s, k))
			return false;
		reverse()->nhits = 0;
		struct dbg_goal goal = {end_thread, end_icount, 0};
		if (!run(s, 0, &goal, DBG_RUN_SCAN))
			return false;
		if (reverse()->nhits) {
			struct dbg_hit hit = reverse()->last_hit;
			if (!move_to_exact(s, hit.thread, hit.icount, hit.pc))
				return false;
			report(s, hit.kind, hit.addr);
			return true;
		}
		end_thread = from.thread;
		end_icount = from.icount;
		end_total = from.total;
	}
}

void stub_reverse(struct stub *s, bool step)
{
	if (!reverse()->on) {
		rsp_send_str(&s->conn, "E01");
		return;
	}
	uint32_t thread = s->continued ? s->continued : s->selected ? s->selected : s->stop.thread;
	bool sent = step ? step_back(s, thread) : continue_back(s);
	if (!sent && s->stopped) /* (a replay that ended told gdb itself) */
		rsp_send_str(&s->conn, "E01");
}

static void list_checkpoints(char *out, size_t size)
{
	size_t n = (size_t)snprintf(out, size, "checkpoints (every %" PRIu64 " instructions):\n",
				    reverse()->interval);
	int order[DBG_MAX_CHECKPOINTS], count = 0;
	for (int k = 0; k < DBG_MAX_CHECKPOINTS; k++) {
		if (reverse()->checkpoints[k].pid <= 0)
			continue;
		int i = count++;
		while (i > 0 && reverse()->checkpoints[order[i - 1]].total >
				    reverse()->checkpoints[k].total) {
			order[i] = order[i - 1];
			i--;
		}
		order[i] = k;
	}
	for (int i = 0; i < count && n < size; i++) {
		const struct dbg_checkpoint *ck = &reverse()->checkpoints[order[i]];
		char threads[32] = "";
		if (ck->live_threads > 1)
			snprintf(threads, sizeof threads, ", %" PRIu32 " threads",
				 ck->live_threads);
		n += (size_t)snprintf(out + n, size - n,
				      "  %2d  total %" PRIu64 ": thread %" PRIu32
				      " at icount %" PRIu64 ", pc 0x%" PRIx64 "%s%s (process %d)\n",
				      i, ck->total, ck->thread, ck->icount, ck->pc, threads,
				      ck->total ? ck->extra ? ", near a goal" : ""
						: ", the region's start",
				      (int)ck->pid);
	}
}

bool stub_reverse_monitor(struct stub *s, const char *cmd, char *out, size_t size)
{
	if (!reverse()->on)
		return false;
	if (!strcmp(cmd, "checkpoints")) {
		list_checkpoints(out, size);
		return true;
	}
	uint64_t target;
	uint32_t thread = s->selected ? s->selected : s->stop.thread;
	char extra;
	if (strncmp(cmd, "goto", 4))
		return false;
	int n = sscanf(cmd + 4, " %" SCNu64 " %" SCNu32 " %c", &target, &thread, &extra);
	struct dbg_position now;
	if (n < 1 || n > 2)
		snprintf(out, size,
			 "usage: monitor goto N [THREAD] (an instruction count of the thread, by "
			 "default the selected one)\n");
	else if (!position(thread, &now))
		snprintf(out, size, "error: thread %" PRIu32 " is not there\n", thread);
	else if (target >= now.end)
		snprintf(out, size,
			 "error: thread %" PRIu32 " ends at icount %" PRIu64
			 ": the replay can stop at 0 to %" PRIu64 "\n",
			 thread, now.end, now.end - 1);
	else if (!move_to(s, thread, target))
		snprintf(out, size, "error: the replay could not get there\n");
	else {
		s->stop.kind = DBG_STOP_SIGNAL;
		s->stop.signal = SIGTRAP;
		snprintf(out, size, "thread %" PRIu32 " at icount %" PRIu64 ", pc 0x%" PRIx64 "\n",
			 thread, s->stop.icount, s->stop.pc);
	}
	return true;
}

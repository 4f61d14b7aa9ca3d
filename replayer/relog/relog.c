#include "relog.h"

#include <string.h>
#include <sys/syscall.h>

#include "inject_memory.h"

#include "jit_messages.h"
#include "region_snapshot.h"
#include "rt_format.h"
#include "rt_string.h"

static struct {
	const char *basename;
	bool inside;
	uint32_t region; /* the current or next one */
	uint32_t tid;
	uint64_t start;	 /* the replay's count where the region began */
	char path[4096]; /* basename.region */
	char start_spec[256], stop_spec[256];
	struct pinball_cause cause; /* of the start */
	const struct replay_input *in;
} rl;

void relog_start(const char *basename, const struct replay_input *in)
{
	rl.basename = basename;
	rl.in = in;
}

/* The pages of the file mapping an mmap of the region made go with it (pinball.h
 * at_mmap), under its count in the new pinball. */
static void relog_mmap_pages(uint32_t tid, const struct replay_event *e, uint64_t icount)
{
	size_t n;
	const struct replay_mmap_page *p = inject_mmap_pages_of(rl.in, tid, e->icount, &n);
	for (size_t i = 0; i < n; i++) {
		struct record *r = must_new(REC_PAGE, p[i].data ? 4096 : 0);
		r->u.page.addr = p[i].addr;
		r->u.page.prot = (uint32_t)e->args[2];
		if (p[i].data) {
			memcpy(r->data, p[i].data, 4096);
			r->u.page.data = r->data;
		}
		r->u.page.zero_pages = p[i].data ? 0 : 1;
		r->u.page.past_end = p[i].past_end;
		r->u.page.at_mmap = true;
		r->u.page.mmap_tid = tid;
		r->u.page.mmap_icount = icount;
		record_push(r);
	}
}

static void begin(struct jit_thread *t, const struct control_event_info *ev)
{
	rt_format(rl.path, sizeof rl.path, "%s.%u", rl.basename, rl.region);
	rt_strlcpy(rl.start_spec, ev->alarm ? ev->alarm->text : "default-start",
		   sizeof rl.start_spec);
	rl.cause = (struct pinball_cause){"control", rl.start_spec, ev->tid, ev->icount};
	rl.tid = jit_thread_id(t);
	rl.start = ev->icount;
	region_snapshot_begin(t, rl.path, &rl.cause, true);
	static const struct state_note plain;
	region_snapshot_state(REC_THREAD, t, 0, &plain);
	rl.inside = true;
}

/* The region ends with t at the replay's count `icount`. */
static void end(struct jit_thread *t, uint64_t icount, const struct pinball_cause *cause)
{
	uint64_t n = icount - rl.start;
	if (n) {
		struct record *s = must_new(REC_SLICE, 0);
		s->u.slice = (struct pinball_slice){rl.tid, n};
		record_push(s);
	}
	static const struct state_note plain;
	region_snapshot_state(REC_END, t, n, &plain);
	struct record *r = must_new(REC_FINISH, 0);
	r->u.finish.cause = *cause;
	record_push(r);
	const char *err = record_queue_wait_done();
	if (err[0])
		jit_fatal("-log: %s", err);
	jit_message("relogged %s: %lu instructions from icount %lu", rl.path, n, rl.start);
	rl.inside = false;
	rl.region++;
}

void relog_event(const struct control_event_info *ev, void *arg)
{
	(void)arg;
	if (ev->event == CONTROL_EVENT_START && !rl.inside) {
		begin(ev->thread, ev);
	} else if (ev->event == CONTROL_EVENT_STOP && rl.inside) {
		rt_strlcpy(rl.stop_spec, ev->alarm ? ev->alarm->text : "stop", sizeof rl.stop_spec);
		struct pinball_cause cause = {"control", rl.stop_spec, ev->tid, ev->icount};
		end(ev->thread, ev->icount, &cause);
	}
}

static void replayed(uint32_t tid, const struct replay_event *e, void *arg)
{
	(void)arg;
	if (!rl.inside || e->icount < rl.start)
		return;
	struct record *r = must_new(REC_EVENT, 0);
	struct pinball_event *pe = &r->u.event.ev;
	r->u.event.tid = tid;
	pe->icount = e->icount - rl.start;
	pe->kind = e->kind;
	/* Pointers into the pinball read for the replay, which lives as long as the process. */
	switch (e->kind) {
	case PINBALL_EV_SYSCALL:
		pe->syscall.nr = e->nr;
		memcpy(pe->syscall.args, e->args, sizeof pe->syscall.args);
		pe->syscall.result = e->result;
		pe->syscall.nwrites = e->nwrites;
		pe->syscall.writes = e->writes;
		pe->syscall.echo = e->echo;
		pe->syscall.output = e->output;
		pe->syscall.output_len = e->output_len;
		pe->syscall.output_checked = e->output_checked;
		pe->syscall.output_crc = e->output_crc;
		pe->syscall.mapped_path = e->mapped_path;
		break;
	case PINBALL_EV_INSN:
		pe->insn.kind = (enum pinball_insn_kind)e->insn.kind;
		pe->insn.rax = e->insn.rax;
		pe->insn.rbx = e->insn.rbx;
		pe->insn.rcx = e->insn.rcx;
		pe->insn.rdx = e->insn.rdx;
		pe->insn.value = e->insn.value;
		pe->insn.dest_reg = e->insn.dest_reg;
		pe->insn.cf = e->insn.cf;
		pe->insn.in_eax = e->insn.in_eax;
		pe->insn.in_ecx = e->insn.in_ecx;
		break;
	case PINBALL_EV_SIGNAL:
		pe->signal.signo = e->signal.signo;
		pe->signal.siginfo = e->signal.bytes;
		pe->signal.siginfo_len = e->signal.len;
		break;
	default: /* thread events: relogging is single-threaded */
		break;
	}
	record_push(r);
	if (e->kind == PINBALL_EV_SYSCALL && e->nr == SYS_mmap)
		relog_mmap_pages(tid, e, pe->icount);
}

/* The replay reached the pinball's end inside a region: the new pinball ends there too. */
static void replay_end(struct jit_thread *t, uint64_t icount, void *arg)
{
	(void)arg;
	if (!rl.inside)
		return;
	static const struct pinball_cause cause = {"exit", "end of the replayed pinball", 0, 0};
	end(t, icount, &cause);
}

const struct replay_observer relog_observer = {replayed, replay_end, NULL};

#include "icount.h"

#include "instrument.h"
#include "jit_messages.h"
#include "report.h"
#include "rt_format.h"

enum { MAX_THREADS = 1024 };

struct thread_count {
	bool inside;
	uint64_t since; /* the thread's icount when its region began */
	uint64_t total;
};

static struct thread_count counts[MAX_THREADS];
static const char *output;

static void apply(uint32_t tid, enum control_event event, uint64_t icount)
{
	if (tid >= MAX_THREADS)
		return;
	struct thread_count *c = &counts[tid];
	if (event == CONTROL_EVENT_START && !c->inside) {
		c->inside = true;
		c->since = icount;
	} else if (event == CONTROL_EVENT_STOP && c->inside) {
		c->inside = false;
		c->total += icount - c->since;
	}
}

void icount_tool_event(const struct control_event_info *ev)
{
	if (!ev->bcast) {
		apply(ev->tid, ev->event, ev->icount);
		return;
	}
	for (size_t i = 0; i < jit_thread_count(); i++) {
		const struct jit_thread *t = jit_thread_at(i);
		uint32_t tid = jit_thread_id(t);
		apply(tid, ev->event, tid == ev->tid ? ev->icount : jit_thread_icount(t));
	}
}

static void write_report(int fd)
{
	uint64_t total = 0;
	for (size_t i = 0; i < jit_thread_count(); i++) {
		const struct jit_thread *t = jit_thread_at(i);
		uint32_t tid = jit_thread_id(t);
		apply(tid, CONTROL_EVENT_STOP, jit_thread_icount(t)); /* close open regions */
		uint64_t n = tid < MAX_THREADS ? counts[tid].total : 0;
		total += n;
		rt_dprintf(fd, "icount tid=%u %lu\n", tid, n);
	}
	rt_dprintf(fd, "icount total %lu\n", total);
}

static void report(int status, void *arg)
{
	(void)status;
	(void)arg;
	report_write(output, write_report);
}

/* A vfork child may run in our memory: the count it keeps is in its own thread block, and
 * the tool itself only acts on controller events, which the child never raises. */
static bool vfork_shares_memory(void *arg)
{
	(void)arg;
	return true;
}

static const struct jit_client client = {
    .name = "icount",
    .at_exit = report,
    .vfork_shares_memory = vfork_shares_memory,
};

void icount_tool_register(const char *output_path)
{
	output = output_path;
	jit_enable_icount();
	jit_register_client(&client);
}

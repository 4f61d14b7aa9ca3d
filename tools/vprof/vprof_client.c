/* The value profiler's JIT client (app threads, TLS-free): at translation, each block's
 * profiled instructions get their values stored inline into the block's record
 * (jit_insert_trace_*); region events become marks between records. No plug-in code runs
 * here: the specification was compiled before the app started. */
#include <string.h>
#include <sys/mman.h>

#include "instrument.h"
#include "jit_app.h"
#include "jit_messages.h"
#include "rt_alloc.h"
#include "rt_format.h"
#include "rt_mutex.h"
#include "rt_syscall.h"
#include "trace_buffers.h"
#include "vprof.h"
#include "vprof_internal.h"

struct vp_spec vp_spec;
struct vp_image *vp_images;
size_t vp_nimages;

enum { INSN_HASH_SLOTS = 1 << 20 };

/* Region marks a thread has not written yet: they go between its records at its next block
 * start (or where it leaves its block), never into the record being written. */
struct pending {
	rt_mutex lock; /* the thread itself and a broadcast event's thread */
	uint32_t n;
	uint64_t marks[VP_MAX_MARKS];
};

static struct {
	struct trace_buffers buffers;
	const struct vprof_insn **insns; /* deduplicated instructions, open addressing by pc */
	struct pending pending[TRACE_BUFFERS_MAX_THREADS];
	/* Each thread's side of its regions after the marks noted for it so far: what a buffer
	 * after skipped records (-vprofile_sample) starts with. */
	bool inside[TRACE_BUFFERS_MAX_THREADS];
	long pid;	/* the process, when it started: a forked child is another */
	uint32_t image; /* this image's number in the process (vprof_knobs.image) */
} vc;

/* What the next image of a followed execve is told: its number in its process, so that its
 * profile goes to a file of its own (vprof.h). Written at the exec. */
static char image_number[16];
static char *exec_knobs[] = {"-vprofile:image", image_number, NULL};

static uint32_t insn_hash(uint64_t pc)
{
	return (uint32_t)((pc * 0x9e3779b97f4a7c15ull) >> 44) & (INSN_HASH_SLOTS - 1);
}

/* The instruction's shared description: found again for a retranslation of the same code,
 * else a copy of d. Translation is serialised by the runtime: no lock. */
static const struct vprof_insn *insn_of(const struct vprof_insn *d)
{
	uint32_t h = insn_hash(d->pc);
	for (uint32_t probes = 0; probes < INSN_HASH_SLOTS;
	     probes++, h = (h + 1) & (INSN_HASH_SLOTS - 1)) {
		const struct vprof_insn *in = vc.insns[h];
		if (!in)
			break;
		if (in->pc == d->pc && in->length == d->length &&
		    !memcmp(in->bytes, d->bytes, d->length))
			return in;
	}
	struct vprof_insn *in = rt_alloc(sizeof *in);
	if (!in)
		jit_fatal("-vprofile: out of memory for instruction descriptions");
	*in = *d;
	if (!vc.insns[h])
		vc.insns[h] = in; /* a full table only loses the sharing */
	return in;
}

/* Inserts the stores of instruction i's values from offset *off on (8 bytes a value; an
 * address goes with a memory value, a REP string's count with its addresses); clears the
 * slots the JIT cannot capture. */
static void lay_out(struct jit_block *b, size_t i, struct vprof_insn *d,
		    const struct vp_capture *how, struct vp_binsn *bi, uint32_t *off)
{
	*bi = (struct vp_binsn){.nvalues = (uint8_t)d->nvalues};
	for (unsigned k = 0; k < d->nvalues; k++) {
		uint32_t at = *off;
		bool ok = false;
		switch (how[k].how) {
		case VP_GPR:
			ok = jit_insert_trace_gpr(b, i, how[k].what, how[k].after, at);
			*off += ok ? 8 : 0;
			break;
		case VP_ADDR:
			jit_insert_trace_address(b, i, how[k].what, at);
			ok = true;
			*off += 8;
			if (jit_insn_is_rep_string(jit_block_insn(b, i)) && !bi->rcx_offset) {
				bi->rcx_offset = (uint16_t)*off;
				jit_insert_trace_gpr(b, i, JIT_GPR_RCX, false, *off);
				*off += 8;
			}
			break;
		case VP_MEM:
			ok = jit_insert_trace_memory(b, i, how[k].what, at + 8, at);
			*off += ok ? 16 : 0;
			break;
		default:
			break;
		}
		bi->offset[k] = ok ? (uint16_t)at : 0;
		bi->shift[k] = how[k].shift;
		bi->size[k] = d->values[k].size;
		bi->addresses |= (uint8_t)((how[k].how == VP_ADDR) << k);
		d->values[k].valid = ok;
	}
}

static void full(const struct jit_callout *c);

static void instrument(struct jit_block *b, void *arg)
{
	(void)arg;
	size_t n = jit_block_length(b);
	struct vp_binsn insns[JIT_MAX_BLOCK_LENGTH];
	uint32_t m = 0, off = 8; /* after the block's word */
	for (size_t i = 0; i < n; i++) {
		struct vprof_insn d;
		struct vp_capture how[VPROF_MAX_VALUES];
		if (!vp_spec_describe(&vp_spec, jit_block_pc(b, i), jit_block_insn(b, i),
				      jit_block_operands(b, i), jit_block_bytes(b, i), &d, how))
			continue;
		lay_out(b, i, &d, how, &insns[m], &off);
		insns[m].pc = d.pc;
		insns[m++].insn = insn_of(&d);
	}
	/* A block without a record is one the decoder never hears of: fine unless the calls
	 * and returns of every block are needed. */
	if (!m && !(vp_spec.contexts & VPROF_CONTEXT_CALLER))
		return;
	struct vp_block *blk = rt_alloc(sizeof *blk + m * sizeof blk->insns[0]);
	void **stats = rt_calloc(m + 1, sizeof *stats);
	if (!blk || !stats)
		jit_fatal("-vprofile: out of memory for block layouts");
	const ZydisDecodedInstruction *last = jit_block_insn(b, n - 1);
	*blk = (struct vp_block){
	    .start_pc = jit_block_pc(b, 0),
	    .last_pc = jit_block_pc(b, n - 1),
	    .return_to = jit_block_pc(b, n - 1) + last->length,
	    .bytes = off,
	    .end = last->mnemonic == ZYDIS_MNEMONIC_CALL  ? VP_END_CALL
		   : last->mnemonic == ZYDIS_MNEMONIC_RET ? VP_END_RET
							  : VP_END_NONE,
	    .ninsns = m,
	    .stats = stats,
	};
	memcpy(blk->insns, insns, m * sizeof insns[0]);
	trace_buffers_add_block(&vc.buffers, b, blk, off, full);
}

struct vp_block *vp_block_of(uint64_t word)
{
	return trace_buffers_layout(&vc.buffers, word);
}

static void thread_start(struct jit_thread *t, uint64_t pc, void *arg)
{
	(void)pc;
	(void)arg;
	trace_buffers_thread_start(&vc.buffers, t);
}

/* The thread's next block start: its waiting marks go before the record begun, and the
 * buffer to the helper when it is full. */
static void full(const struct jit_callout *c)
{
	uint32_t tid = jit_thread_id(c->thread);
	struct pending *p = tid < TRACE_BUFFERS_MAX_THREADS ? &vc.pending[tid] : NULL;
	uint64_t marks[VP_MAX_MARKS];
	uint32_t n = 0;
	if (p) {
		rt_mutex_lock(&p->lock);
		n = p->n;
		memcpy(marks, p->marks, n * sizeof marks[0]);
		p->n = 0;
		rt_mutex_unlock(&p->lock);
	}
	trace_buffers_full(&vc.buffers, c->thread, (uint32_t)(uintptr_t)c->arg, marks, n);
}

/* The thread's waiting marks, at its position between records. */
static void write_pending(struct jit_thread *t)
{
	uint32_t tid = jit_thread_id(t);
	if (tid >= TRACE_BUFFERS_MAX_THREADS)
		return;
	struct pending *p = &vc.pending[tid];
	rt_mutex_lock(&p->lock);
	for (uint32_t k = 0; k < p->n; k++)
		trace_buffers_append(&vc.buffers, t, p->marks[k]);
	p->n = 0;
	rt_mutex_unlock(&p->lock);
}

static void block_left(struct jit_thread *t, uint64_t pc, void *arg)
{
	(void)arg;
	write_pending(t);
	trace_buffers_append(&vc.buffers, t, vp_mark(VP_MARK_LEFT, pc));
}

/* A mark for t, written at its next block start. More than VP_MAX_MARKS before then
 * (regions opening and closing within one block): the last one replaces the previous
 * last, which keeps the state the thread ends in. */
static void note(struct jit_thread *t, uint64_t mark)
{
	uint32_t tid = jit_thread_id(t);
	if (tid >= TRACE_BUFFERS_MAX_THREADS)
		return;
	struct pending *p = &vc.pending[tid];
	rt_mutex_lock(&p->lock);
	if (p->n == VP_MAX_MARKS)
		p->n--;
	p->marks[p->n++] = mark;
	__atomic_store_n(&vc.inside[tid], VP_MARK_KIND(mark) == VP_MARK_START, __ATOMIC_RELAXED);
	rt_mutex_unlock(&p->lock);
	trace_buffers_force_full(&vc.buffers, t);
}

void vprof_event(const struct control_event_info *ev)
{
	if (ev->event != CONTROL_EVENT_START && ev->event != CONTROL_EVENT_STOP)
		return;
	unsigned kind = ev->event == CONTROL_EVENT_START ? VP_MARK_START : VP_MARK_STOP;
	if (!ev->bcast) {
		note(ev->thread, vp_mark(kind, ev->pc));
		return;
	}
	/* The other threads are somewhere in their blocks: the event reaches them at their
	 * next block start. */
	for (size_t i = 0; i < jit_thread_count(); i++) {
		struct jit_thread *t = jit_thread_at(i);
		if (!jit_thread_exited(t))
			note(t, vp_mark(kind, t == ev->thread ? ev->pc : VP_NEXT_RECORD));
	}
}

static int add_image(const struct jit_app_mapping *m, void *arg)
{
	(void)arg;
	if (!m->path || m->path[0] == '[' || !(m->prot & PROT_EXEC))
		return 0;
	struct vp_image *grown = rt_realloc(vp_images, (vp_nimages + 1) * sizeof *grown);
	const char *path = rt_strdup(m->path);
	if (!grown || !path)
		return 1; /* source lines are a nicety: fewer of them */
	vp_images = grown;
	vp_images[vp_nimages++] = (struct vp_image){m->start, m->end, m->offset, path};
	return 0;
}

/* Every thread's marks and last buffer to the helper, then wait until it has written the
 * profile. */
static void finish(void)
{
	static bool finished; /* an exec that failed after before_exec: at_exit comes too */
	if (finished)
		return;
	finished = true;
	for (size_t i = 0; i < jit_thread_count(); i++)
		write_pending(jit_thread_at(i));
	jit_app_map_foreach(add_image, NULL);
	trace_buffers_finish(&vc.buffers);
}

static void at_exit(int status, void *arg)
{
	(void)status;
	(void)arg;
	finish();
}

/* The process image ends here: its profile is written before the next one starts, which is
 * the next image of this process, or the first of a forked child (whose own buffers went
 * nowhere: the helper thread stayed in the parent). */
static void before_exec(struct jit_thread *t, void *arg)
{
	(void)t;
	(void)arg;
	rt_format(image_number, sizeof image_number, "%u",
		  rt_getpid() == vc.pid ? vc.image + 1 : 1);
	finish();
}

static const struct jit_client client = {
    .name = "vprofile",
    .instrument_block = instrument,
    .thread_start = thread_start,
    .block_left = block_left,
    .at_exit = at_exit,
    .before_exec = before_exec,
};

static void *reserve(size_t bytes)
{
	long r = rt_mmap(NULL, bytes, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	return rt_is_error(r) ? NULL : (void *)r;
}

static uint64_t gap_word(const struct jit_thread *t)
{
	return vp_mark(VP_MARK_GAP,
		       __atomic_load_n(&vc.inside[jit_thread_id(t)], __ATOMIC_RELAXED));
}

int vp_client_register(struct handoff *h, uint32_t image, uint32_t sample, char *err, size_t errlen)
{
	vc.pid = rt_getpid();
	vc.image = image;
	if (trace_buffers_init(&vc.buffers, h, "-vprofile", VP_MARGIN, err, errlen))
		return -1;
	if (trace_buffers_sample(&vc.buffers, sample, gap_word, err, errlen))
		return -1;
	vc.insns = reserve(INSN_HASH_SLOTS * sizeof *vc.insns);
	if (!vc.insns) {
		rt_format(err, errlen, "cannot reserve memory for -vprofile");
		return -1;
	}
	/* The recorder is the only other client with exec knobs, and never runs with us
	 * (the logger's -vprofile needs -log 0). */
	jit_set_exec_knobs(exec_knobs);
	jit_register_client(&client);
	return 0;
}

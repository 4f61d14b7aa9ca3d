#include "convert.h"

#include <signal.h>
#include <stdio.h>
#include <string.h>

#define NEW(a, type, init)                                                                         \
	({                                                                                         \
		type *p_ = arena_alloc((a), sizeof(type));                                         \
		if (p_)                                                                            \
			init(p_);                                                                  \
		p_;                                                                                \
	})

static char *str(const char *s)
{
	return (char *)(s ? s : "");
}

static ProtobufCBinaryData bytes(const uint8_t *data, size_t len)
{
	return (ProtobufCBinaryData){.len = len, .data = (uint8_t *)data};
}

static const char *cstr(const char *s)
{
	return s ? s : "";
}

Pinball__Cause *cause_to_pb(const struct pinball_cause *c, struct arena *a)
{
	Pinball__Cause *pc = NEW(a, Pinball__Cause, pinball__cause__init);
	if (!pc)
		return NULL;
	pc->kind = str(c->kind);
	pc->spec = str(c->spec);
	pc->tid = c->tid;
	pc->icount = c->icount;
	return pc;
}

void cause_from_pb(const Pinball__Cause *pc, struct pinball_cause *c)
{
	memset(c, 0, sizeof *c);
	c->kind = c->spec = "";
	if (!pc)
		return;
	c->kind = cstr(pc->kind);
	c->spec = cstr(pc->spec);
	c->tid = pc->tid;
	c->icount = pc->icount;
}

Pinball__Header *header_to_pb(const struct pinball_header *h, struct arena *a)
{
	Pinball__Header *ph = NEW(a, Pinball__Header, pinball__header__init);
	Pinball__CpuidLeaf **leaves = arena_alloc(a, h->ncpuid * sizeof *leaves + 1);
	Pinball__XsaveComponent **comps = arena_alloc(a, h->nxsave_components * sizeof *comps + 1);
	if (!ph || !leaves || !comps || !(ph->region_start = cause_to_pb(&h->region_start, a)))
		return NULL;
	ph->format_major = PINBALL_FORMAT_MAJOR;
	ph->format_minor = PINBALL_FORMAT_MINOR;
	ph->tool_version = str(h->tool_version);
	ph->n_argv = h->argc;
	ph->argv = (char **)h->argv;
	ph->cwd = str(h->cwd);
	ph->env_count = h->env_count;
	ph->env_bytes = h->env_bytes;
	ph->arch = str(h->arch);
	ph->cpu_vendor = str(h->cpu_vendor);
	ph->cpu_family = h->cpu_family;
	ph->cpu_model = h->cpu_model;
	ph->cpu_stepping = h->cpu_stepping;
	for (size_t i = 0; i < h->ncpuid; i++) {
		const struct pinball_cpuid_leaf *l = &h->cpuid[i];
		Pinball__CpuidLeaf *pl = NEW(a, Pinball__CpuidLeaf, pinball__cpuid_leaf__init);
		if (!pl)
			return NULL;
		pl->leaf = l->leaf;
		pl->subleaf = l->subleaf;
		pl->eax = l->eax;
		pl->ebx = l->ebx;
		pl->ecx = l->ecx;
		pl->edx = l->edx;
		leaves[i] = pl;
	}
	ph->n_cpuid = h->ncpuid;
	ph->cpuid = leaves;
	ph->xcr0 = h->xcr0;
	ph->xsave_size = h->xsave_size;
	for (size_t i = 0; i < h->nxsave_components; i++) {
		Pinball__XsaveComponent *pc =
		    NEW(a, Pinball__XsaveComponent, pinball__xsave_component__init);
		if (!pc)
			return NULL;
		pc->index = h->xsave_components[i].index;
		pc->offset = h->xsave_components[i].offset;
		pc->size = h->xsave_components[i].size;
		comps[i] = pc;
	}
	ph->n_xsave_components = h->nxsave_components;
	ph->xsave_components = comps;
	ph->page_size = h->page_size ? h->page_size : 4096;
	ph->creation_time_ns = h->creation_time_ns;
	ph->pid = h->pid;
	Pinball__SignalAction **acts = arena_alloc(a, h->nsigactions * sizeof *acts + 1);
	Pinball__SignalStack *ss = NEW(a, Pinball__SignalStack, pinball__signal_stack__init);
	if (!acts || !ss)
		return NULL;
	for (size_t i = 0; i < h->nsigactions; i++) {
		const struct pinball_sigaction *sa = &h->sigactions[i];
		Pinball__SignalAction *pa =
		    NEW(a, Pinball__SignalAction, pinball__signal_action__init);
		if (!pa)
			return NULL;
		pa->signo = sa->signo;
		pa->handler = sa->handler;
		pa->flags = sa->flags;
		pa->restorer = sa->restorer;
		pa->mask = sa->mask;
		acts[i] = pa;
	}
	ph->n_signal_actions = h->nsigactions;
	ph->signal_actions = acts;
	ss->sp = h->sigstack.sp;
	ss->flags = h->sigstack.flags;
	ss->size = h->sigstack.size;
	ph->signal_stack = ss;
	return ph;
}

const char *header_from_pb(const Pinball__Header *ph, struct pinball_header *h, struct arena *a)
{
	memset(h, 0, sizeof *h);
	struct pinball_cpuid_leaf *leaves = arena_alloc(a, ph->n_cpuid * sizeof *leaves + 1);
	struct pinball_xsave_component *comps =
	    arena_alloc(a, ph->n_xsave_components * sizeof *comps + 1);
	if (!leaves || !comps)
		return "out of memory";
	if (ph->page_size < 4096 || ph->page_size > (1u << 30) ||
	    (ph->page_size & (ph->page_size - 1)))
		return "bad page size";
	if (ph->format_major < PINBALL_FORMAT_OLDEST_MAJOR ||
	    ph->format_major > PINBALL_FORMAT_MAJOR)
		return "a format version this reader does not read";
	if (ph->xsave_size && (ph->xsave_size < 576 || ph->xsave_size > (1u << 20)))
		return "an impossible xsave size";
	for (size_t i = 0; i < ph->n_xsave_components; i++) {
		const Pinball__XsaveComponent *c = ph->xsave_components[i];
		if ((uint64_t)c->offset + c->size > ph->xsave_size)
			return "an xsave component beyond the xsave size";
	}
	h->format_major = (uint16_t)ph->format_major;
	h->format_minor = (uint16_t)ph->format_minor;
	h->tool_version = cstr(ph->tool_version);
	h->argc = ph->n_argv;
	h->argv = (const char *const *)ph->argv;
	h->cwd = cstr(ph->cwd);
	h->env_count = ph->env_count;
	h->env_bytes = ph->env_bytes;
	h->arch = cstr(ph->arch);
	h->cpu_vendor = cstr(ph->cpu_vendor);
	h->cpu_family = ph->cpu_family;
	h->cpu_model = ph->cpu_model;
	h->cpu_stepping = ph->cpu_stepping;
	for (size_t i = 0; i < ph->n_cpuid; i++) {
		const Pinball__CpuidLeaf *l = ph->cpuid[i];
		leaves[i] = (struct pinball_cpuid_leaf){l->leaf, l->subleaf, l->eax,
							l->ebx,	 l->ecx,     l->edx};
	}
	h->ncpuid = ph->n_cpuid;
	h->cpuid = leaves;
	h->xcr0 = ph->xcr0;
	h->xsave_size = ph->xsave_size;
	for (size_t i = 0; i < ph->n_xsave_components; i++) {
		const Pinball__XsaveComponent *c = ph->xsave_components[i];
		comps[i] = (struct pinball_xsave_component){c->index, c->offset, c->size};
	}
	h->nxsave_components = ph->n_xsave_components;
	h->xsave_components = comps;
	h->page_size = ph->page_size;
	h->creation_time_ns = ph->creation_time_ns;
	h->pid = ph->pid;
	cause_from_pb(ph->region_start, &h->region_start);
	struct pinball_sigaction *acts = arena_alloc(a, ph->n_signal_actions * sizeof *acts + 1);
	if (!acts)
		return "out of memory";
	for (size_t i = 0; i < ph->n_signal_actions; i++) {
		const Pinball__SignalAction *pa = ph->signal_actions[i];
		if (pa->signo < 1 || pa->signo > 64)
			return "bad signal number in the signal actions";
		acts[i] = (struct pinball_sigaction){pa->signo, pa->handler, pa->flags,
						     pa->restorer, pa->mask};
	}
	h->nsigactions = ph->n_signal_actions;
	h->sigactions = acts;
	h->sigstack = (struct pinball_sigstack){.flags = SS_DISABLE};
	if (ph->signal_stack)
		h->sigstack = (struct pinball_sigstack){
		    ph->signal_stack->sp, ph->signal_stack->flags, ph->signal_stack->size};
	return NULL;
}

Pinball__Thread *thread_to_pb(const struct pinball_thread *t, struct arena *a)
{
	Pinball__Thread *pt = NEW(a, Pinball__Thread, pinball__thread__init);
	Pinball__Regs *pr = NEW(a, Pinball__Regs, pinball__regs__init);
	if (!pt || !pr)
		return NULL;
	pt->tid = t->tid;
	pt->icount = t->icount;
	pt->signal_mask = t->signal_mask;
	pt->regs = pr;
	pt->name = (char *)t->name;
	if (t->in_syscall) {
		Pinball__InSyscall *in = NEW(a, Pinball__InSyscall, pinball__in_syscall__init);
		if (!in)
			return NULL;
		in->nr = t->syscall_nr;
		pt->in_syscall = in;
	}
	pr->n_gpr = PINBALL_GPR_COUNT;
	pr->gpr = (uint64_t *)t->regs.gpr;
	pr->rip = t->regs.rip;
	pr->rflags = t->regs.rflags;
	pr->fs_base = t->regs.fs_base;
	pr->gs_base = t->regs.gs_base;
	pr->xsave = bytes(t->regs.xsave, t->regs.xsave_len);
	return pt;
}

const char *thread_from_pb(const Pinball__Thread *pt, struct pinball_thread *t)
{
	memset(t, 0, sizeof *t);
	const Pinball__Regs *pr = pt->regs;
	if (!pr || pr->n_gpr != PINBALL_GPR_COUNT)
		return "thread record without its 16 general registers";
	t->tid = pt->tid;
	t->icount = pt->icount;
	t->signal_mask = pt->signal_mask;
	memcpy(t->regs.gpr, pr->gpr, sizeof t->regs.gpr);
	t->regs.rip = pr->rip;
	t->regs.rflags = pr->rflags;
	t->regs.fs_base = pr->fs_base;
	t->regs.gs_base = pr->gs_base;
	t->regs.xsave = pr->xsave.data;
	t->regs.xsave_len = pr->xsave.len;
	t->in_syscall = pt->in_syscall != NULL;
	t->syscall_nr = pt->in_syscall ? pt->in_syscall->nr : 0;
	if (pt->name && strlen(pt->name) >= sizeof t->name)
		return "thread record with a name longer than 15 bytes";
	snprintf(t->name, sizeof t->name, "%s", pt->name ? pt->name : "");
	return NULL;
}

Pinball__MapEntry *map_to_pb(const struct pinball_map_entry *m, struct arena *a)
{
	Pinball__MapEntry *pm = NEW(a, Pinball__MapEntry, pinball__map_entry__init);
	if (!pm)
		return NULL;
	pm->start = m->start;
	pm->end = m->end;
	pm->prot = m->prot;
	pm->flags = m->flags;
	pm->offset = m->offset;
	pm->path = str(m->path);
	return pm;
}

void map_from_pb(const Pinball__MapEntry *pm, struct pinball_map_entry *m)
{
	*m = (struct pinball_map_entry){pm->start, pm->end,    pm->prot,
					pm->flags, pm->offset, cstr(pm->path)};
}

const char *page_from_pb(const Pinball__Page *pp, uint32_t page_size, struct pinball_page *p)
{
	p->addr = pp->addr;
	p->prot = pp->prot;
	p->at_mmap = pp->at_mmap;
	p->mmap_tid = pp->mmap_tid;
	p->mmap_icount = pp->mmap_icount;
	p->past_end = pp->past_end;
	if (pp->past_end && (pp->data.len || pp->zero_pages != 1))
		return "a page past the end of its file with data, or a run of them";
	if (pp->at_mmap && !pp->data.len && pp->zero_pages != 1)
		return "a page of a mapping made in the region with a run of zero pages";
	if (pp->data.len) {
		if (pp->data.len != page_size || pp->zero_pages)
			return "page record with a bad size";
		p->data = pp->data.data;
		p->npages = 1;
	} else {
		if (!pp->zero_pages)
			return "page record with neither data nor zero pages";
		p->data = NULL;
		p->npages = pp->zero_pages;
	}
	return NULL;
}

static Pinball__Syscall *syscall_to_pb(const struct pinball_event *e, struct arena *a)
{
	Pinball__Syscall *ps = NEW(a, Pinball__Syscall, pinball__syscall__init);
	size_t n = e->syscall.nwrites;
	Pinball__MemWrite **writes = arena_alloc(a, n * sizeof *writes + 1);
	if (!ps || !writes)
		return NULL;
	ps->nr = e->syscall.nr;
	ps->n_args = 6;
	ps->args = (uint64_t *)e->syscall.args;
	ps->result = e->syscall.result;
	for (size_t i = 0; i < n; i++) {
		Pinball__MemWrite *w = NEW(a, Pinball__MemWrite, pinball__mem_write__init);
		if (!w)
			return NULL;
		w->addr = e->syscall.writes[i].addr;
		w->data = bytes(e->syscall.writes[i].data, e->syscall.writes[i].len);
		writes[i] = w;
	}
	ps->n_writes = n;
	ps->writes = writes;
	ps->echo = e->syscall.echo;
	ps->output = bytes(e->syscall.output, e->syscall.output_len);
	ps->output_check = e->syscall.output_checked ? 1ull << 32 | e->syscall.output_crc : 0;
	ps->mapped_path = str(e->syscall.mapped_path);
	return ps;
}

static Pinball__NondetInsn *insn_to_pb(const struct pinball_event *e, struct arena *a)
{
	Pinball__NondetInsn *pi = NEW(a, Pinball__NondetInsn, pinball__nondet_insn__init);
	if (!pi)
		return NULL;
	pi->kind = (Pinball__InsnKind)e->insn.kind;
	pi->rax = e->insn.rax;
	pi->rbx = e->insn.rbx;
	pi->rcx = e->insn.rcx;
	pi->rdx = e->insn.rdx;
	pi->value = e->insn.value;
	pi->dest_reg = e->insn.dest_reg;
	pi->cf = e->insn.cf;
	pi->in_eax = e->insn.in_eax;
	pi->in_ecx = e->insn.in_ecx;
	return pi;
}

Pinball__Event *event_to_pb(const struct pinball_event *e, struct arena *a)
{
	Pinball__Event *pe = NEW(a, Pinball__Event, pinball__event__init);
	if (!pe)
		return NULL;
	pe->icount = e->icount;
	pe->kind_case = (Pinball__Event__KindCase)e->kind;
	switch (e->kind) {
	case PINBALL_EV_SYSCALL:
		return (pe->syscall = syscall_to_pb(e, a)) ? pe : NULL;
	case PINBALL_EV_INSN:
		return (pe->insn = insn_to_pb(e, a)) ? pe : NULL;
	case PINBALL_EV_SIGNAL:
		if (!(pe->signal = NEW(a, Pinball__Signal, pinball__signal__init)))
			return NULL;
		pe->signal->signo = e->signal.signo;
		pe->signal->siginfo = bytes(e->signal.siginfo, e->signal.siginfo_len);
		return pe;
	case PINBALL_EV_THREAD_CREATE:
		if (!(pe->thread_create =
			  NEW(a, Pinball__ThreadCreate, pinball__thread_create__init)))
			return NULL;
		pe->thread_create->child_tid = e->thread_create.child_tid;
		pe->thread_create->clone_flags = e->thread_create.clone_flags;
		return pe;
	case PINBALL_EV_THREAD_EXIT:
		if (!(pe->thread_exit = NEW(a, Pinball__ThreadExit, pinball__thread_exit__init)))
			return NULL;
		pe->thread_exit->status = e->thread_exit.status;
		return pe;
	}
	return NULL;
}

static const char *syscall_from_pb(const Pinball__Syscall *ps, struct pinball_event *e,
				   struct arena *a)
{
	if (ps->n_args != 6)
		return "system call record without its 6 arguments";
	struct pinball_mem_write *writes = arena_alloc(a, ps->n_writes * sizeof *writes + 1);
	if (!writes)
		return "out of memory";
	e->syscall.nr = ps->nr;
	memcpy(e->syscall.args, ps->args, sizeof e->syscall.args);
	e->syscall.result = ps->result;
	for (size_t i = 0; i < ps->n_writes; i++)
		writes[i] = (struct pinball_mem_write){
		    ps->writes[i]->addr, ps->writes[i]->data.data, ps->writes[i]->data.len};
	e->syscall.nwrites = ps->n_writes;
	e->syscall.writes = writes;
	if (ps->echo > 2)
		return "system call record with a bad echo stream";
	e->syscall.echo = ps->echo;
	e->syscall.output = ps->output.data;
	e->syscall.output_len = ps->output.len;
	if (ps->output_check >> 33)
		return "system call record with a bad output check";
	e->syscall.output_checked = ps->output_check >> 32;
	e->syscall.output_crc = (uint32_t)ps->output_check;
	e->syscall.mapped_path = cstr(ps->mapped_path);
	return NULL;
}

const char *event_from_pb(const Pinball__Event *pe, struct pinball_event *e, struct arena *a)
{
	memset(e, 0, sizeof *e);
	e->icount = pe->icount;
	e->kind = (enum pinball_event_kind)pe->kind_case;
	switch (pe->kind_case) {
	case PINBALL__EVENT__KIND_SYSCALL:
		return syscall_from_pb(pe->syscall, e, a);
	case PINBALL__EVENT__KIND_INSN: {
		const Pinball__NondetInsn *pi = pe->insn;
		if (pi->kind < PINBALL__INSN_KIND__INSN_RDTSC ||
		    pi->kind > PINBALL__INSN_KIND__INSN_XGETBV)
			return "instruction event of an unknown kind";
		e->insn.kind = (enum pinball_insn_kind)pi->kind;
		e->insn.rax = pi->rax;
		e->insn.rbx = pi->rbx;
		e->insn.rcx = pi->rcx;
		e->insn.rdx = pi->rdx;
		e->insn.value = pi->value;
		e->insn.dest_reg = pi->dest_reg;
		e->insn.cf = pi->cf;
		e->insn.in_eax = pi->in_eax;
		e->insn.in_ecx = pi->in_ecx;
		return NULL;
	}
	case PINBALL__EVENT__KIND_SIGNAL:
		e->signal.signo = pe->signal->signo;
		e->signal.siginfo = pe->signal->siginfo.data;
		e->signal.siginfo_len = pe->signal->siginfo.len;
		return NULL;
	case PINBALL__EVENT__KIND_THREAD_CREATE:
		e->thread_create.child_tid = pe->thread_create->child_tid;
		e->thread_create.clone_flags = pe->thread_create->clone_flags;
		return NULL;
	case PINBALL__EVENT__KIND_THREAD_EXIT:
		e->thread_exit.status = pe->thread_exit->status;
		return NULL;
	default:
		return "event of no known kind";
	}
}

Pinball__Summary *summary_to_pb(const struct pinball_summary *s, struct arena *a)
{
	Pinball__Summary *ps = arena_alloc(a, sizeof *ps);
	if (!ps)
		return NULL;
	pinball__summary__init(ps);
	ps->threads = s->threads;
	ps->instructions = s->instructions;
	ps->syscalls = s->syscalls;
	ps->nondet_insns = s->nondet_insns;
	ps->signals = s->signals;
	ps->thread_events = s->thread_events;
	ps->data_pages = s->data_pages;
	ps->zero_pages = s->zero_pages;
	ps->map_entries = s->map_entries;
	ps->slices = s->slices;
	return ps;
}

void summary_from_pb(const Pinball__Summary *ps, struct pinball_summary *s)
{
	*s = (struct pinball_summary){
	    ps->threads,       ps->instructions, ps->syscalls,	 ps->nondet_insns, ps->signals,
	    ps->thread_events, ps->data_pages,	 ps->zero_pages, ps->map_entries,  ps->slices};
}

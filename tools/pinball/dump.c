/* pinball dump: one record a line, each starting with its part's name, so grep works. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "pinball_cli.h"

static void dump_header(struct pinball_reader *r)
{
	const struct pinball_header *h = pinball_reader_header(r);
	const struct pinball_cause *stop = pinball_reader_region_stop(r);
	printf("meta format=%u.%u tool=%s pid=%u time_ns=%" PRIu64 " arch=%s page_size=%u "
	       "env_count=%u env_bytes=%" PRIu64 " cwd=%s argv=",
	       h->format_major, h->format_minor, h->tool_version, h->pid, h->creation_time_ns,
	       h->arch, h->page_size, h->env_count, h->env_bytes, h->cwd);
	for (size_t i = 0; i < h->argc; i++)
		printf("%s%s", i ? "," : "", h->argv[i]);
	printf("\nmeta cpu vendor=%s family=%u model=%u stepping=%u xcr0=0x%" PRIx64
	       " xsave_size=%u\n",
	       h->cpu_vendor, h->cpu_family, h->cpu_model, h->cpu_stepping, h->xcr0, h->xsave_size);
	for (size_t i = 0; i < h->ncpuid; i++) {
		const struct pinball_cpuid_leaf *l = &h->cpuid[i];
		printf("meta cpuid leaf=0x%x subleaf=0x%x eax=0x%x ebx=0x%x ecx=0x%x edx=0x%x\n",
		       l->leaf, l->subleaf, l->eax, l->ebx, l->ecx, l->edx);
	}
	for (size_t i = 0; i < h->nxsave_components; i++)
		printf("meta xsave component=%u offset=%u size=%u\n", h->xsave_components[i].index,
		       h->xsave_components[i].offset, h->xsave_components[i].size);
	printf("meta region_start kind=%s spec=%s tid=%u icount=%" PRIu64 "\n",
	       h->region_start.kind, h->region_start.spec, h->region_start.tid,
	       h->region_start.icount);
	printf("meta region_stop kind=%s spec=%s tid=%u icount=%" PRIu64 "\n", stop->kind,
	       stop->spec, stop->tid, stop->icount);
	for (size_t i = 0; i < h->nsigactions; i++) {
		const struct pinball_sigaction *a = &h->sigactions[i];
		printf("meta sigaction signo=%d handler=0x%" PRIx64 " flags=0x%" PRIx64
		       " restorer=0x%" PRIx64 " mask=0x%" PRIx64 "\n",
		       a->signo, a->handler, a->flags, a->restorer, a->mask);
	}
	printf("meta sigaltstack sp=0x%" PRIx64 " flags=%d size=%" PRIu64 "\n", h->sigstack.sp,
	       h->sigstack.flags, h->sigstack.size);
	for (size_t i = 0; i < pinball_reader_part_count(r); i++) {
		const struct pinball_part_info *p = pinball_reader_part(r, i);
		printf("meta part name=%s records=%" PRIu64 " raw=%" PRIu64 " stored=%" PRIu64
		       " file=%" PRIu64 " chunks=%u\n",
		       p->name, p->records, p->raw_bytes, p->stored_bytes, p->file_bytes,
		       p->chunks);
	}
}

/* FNV-1a, to tell page contents apart in a line. */
static uint64_t fnv1a(const uint8_t *p, size_t n)
{
	uint64_t h = 0xcbf29ce484222325u;
	while (n--)
		h = (h ^ *p++) * 0x100000001b3u;
	return h;
}

static void print_hex(const uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		printf("%02x", p[i]);
}

static void print_thread(const char *part, const struct pinball_thread *t)
{
	static const char *const names[] = {"rax", "rcx", "rdx", "rbx", "rsp", "rbp", "rsi", "rdi",
					    "r8",  "r9",  "r10", "r11", "r12", "r13", "r14", "r15"};
	printf("%s tid=%u icount=%" PRIu64, part, t->tid, t->icount);
	for (int i = 0; i < PINBALL_GPR_COUNT; i++)
		printf(" %s=0x%" PRIx64, names[i], t->regs.gpr[i]);
	printf(" rip=0x%" PRIx64 " rflags=0x%" PRIx64 " fs_base=0x%" PRIx64 " gs_base=0x%" PRIx64
	       " xsave_bytes=%zu xsave_hash=%016" PRIx64 " signal_mask=0x%" PRIx64,
	       t->regs.rip, t->regs.rflags, t->regs.fs_base, t->regs.gs_base, t->regs.xsave_len,
	       fnv1a(t->regs.xsave, t->regs.xsave_len), t->signal_mask);
	if (t->in_syscall)
		printf(" in_syscall=%" PRIu64, t->syscall_nr);
	if (t->name[0])
		printf(" name=%s", t->name);
	printf("\n");
}

static void print_event(const char *part, const struct pinball_event *e)
{
	printf("%s icount=%" PRIu64 " %s", part, e->icount, pinball_event_name(e->kind));
	switch (e->kind) {
	case PINBALL_EV_SYSCALL:
		printf(" nr=%" PRIu64 " args=", e->syscall.nr);
		for (int i = 0; i < 6; i++)
			printf("%s0x%" PRIx64, i ? "," : "", e->syscall.args[i]);
		printf(" result=%" PRId64 " writes=%zu", e->syscall.result, e->syscall.nwrites);
		for (size_t i = 0; i < e->syscall.nwrites; i++)
			printf(" 0x%" PRIx64 ":%zu", e->syscall.writes[i].addr,
			       e->syscall.writes[i].len);
		if (e->syscall.echo)
			printf(" echo=%s", e->syscall.echo == 1 ? "stdout" : "stderr");
		if (e->syscall.output_len)
			printf(" output=%zu", e->syscall.output_len);
		if (e->syscall.output_checked)
			printf(" wrote_crc=0x%08" PRIx32, e->syscall.output_crc);
		if (e->syscall.mapped_path && e->syscall.mapped_path[0])
			printf(" path=%s", e->syscall.mapped_path);
		break;
	case PINBALL_EV_INSN:
		printf(" kind=%s rax=0x%" PRIx64 " rbx=0x%" PRIx64 " rcx=0x%" PRIx64
		       " rdx=0x%" PRIx64 " value=0x%" PRIx64 " dest_reg=%u cf=%d in_eax=0x%x "
		       "in_ecx=0x%x",
		       pinball_insn_name(e->insn.kind), e->insn.rax, e->insn.rbx, e->insn.rcx,
		       e->insn.rdx, e->insn.value, e->insn.dest_reg, e->insn.cf, e->insn.in_eax,
		       e->insn.in_ecx);
		break;
	case PINBALL_EV_SIGNAL:
		printf(" signo=%d siginfo=", e->signal.signo);
		print_hex(e->signal.siginfo,
			  e->signal.siginfo_len > 16 ? 16 : e->signal.siginfo_len);
		printf("%s", e->signal.siginfo_len > 16 ? "..." : "");
		break;
	case PINBALL_EV_THREAD_CREATE:
		printf(" child_tid=%u clone_flags=0x%" PRIx64, e->thread_create.child_tid,
		       e->thread_create.clone_flags);
		break;
	case PINBALL_EV_THREAD_EXIT:
		printf(" status=%d", e->thread_exit.status);
		break;
	}
	printf("\n");
}

/* Prints every record of one part; -1 on a reader error (already printed). */
static int dump_part(struct pinball_reader *r, const char *name)
{
	char err[PINBALL_ERR_MAX];
	struct pinball_cursor *c = pinball_cursor_open(r, name, err);
	if (!c) {
		fprintf(stderr, "pinball: error: %s\n", err);
		return -1;
	}
	int got = 0;
	union {
		struct pinball_thread t;
		struct pinball_map_entry m;
		struct pinball_page p;
		struct pinball_event e;
		struct pinball_slice s;
	} u;
	if (!strcmp(name, "threads") || !strcmp(name, "end")) {
		while ((got = pinball_next_thread(c, &u.t)) > 0)
			print_thread(name, &u.t);
	} else if (!strcmp(name, "memmap")) {
		while ((got = pinball_next_map(c, &u.m)) > 0)
			printf(
			    "memmap start=0x%" PRIx64 " end=0x%" PRIx64 " prot=%c%c%c flags=0x%x "
			    "offset=0x%" PRIx64 " path=%s\n",
			    u.m.start, u.m.end, u.m.prot & 1 ? 'r' : '-', u.m.prot & 2 ? 'w' : '-',
			    u.m.prot & 4 ? 'x' : '-', u.m.flags, u.m.offset, u.m.path);
	} else if (!strcmp(name, "pages")) {
		uint32_t size = pinball_reader_header(r)->page_size;
		while ((got = pinball_next_page(c, &u.p)) > 0) {
			if (u.p.data)
				printf("pages addr=0x%" PRIx64 " prot=0x%x data hash=%016" PRIx64,
				       u.p.addr, u.p.prot, fnv1a(u.p.data, size));
			else if (u.p.past_end)
				printf("pages addr=0x%" PRIx64 " prot=0x%x past_end", u.p.addr,
				       u.p.prot);
			else
				printf("pages addr=0x%" PRIx64 " prot=0x%x zero npages=%" PRIu64,
				       u.p.addr, u.p.prot, u.p.npages);
			if (u.p.at_mmap)
				printf(" at_mmap tid=%u icount=%" PRIu64, u.p.mmap_tid,
				       u.p.mmap_icount);
			printf("\n");
		}
	} else if (!strcmp(name, "schedule")) {
		while ((got = pinball_next_slice(c, &u.s)) > 0)
			printf("schedule tid=%u instructions=%" PRIu64 "\n", u.s.tid,
			       u.s.instructions);
	} else {
		while ((got = pinball_next_event(c, &u.e)) > 0)
			print_event(name, &u.e);
	}
	if (got < 0)
		fprintf(stderr, "pinball: error: %s\n", pinball_cursor_error(c));
	pinball_cursor_close(c);
	return got;
}

int cmd_dump(struct pinball_reader *r, const char *part)
{
	if (!part || !strcmp(part, "meta"))
		dump_header(r);
	if (part && !strcmp(part, "meta"))
		return 0;
	if (part)
		return dump_part(r, part) < 0;
	for (size_t i = 0; i < pinball_reader_part_count(r); i++)
		if (dump_part(r, pinball_reader_part(r, i)->name) < 0)
			return 1;
	return 0;
}

/* cachesim: an example simulator on libpintrace-replay. It replays a pinball and models
 * an L1 data cache (32 KiB, 8 ways, 64-byte lines, LRU, write-allocate) and branch
 * prediction (gshare for conditional branches, a last-target table for indirect jumps and
 * calls, a 16-entry return stack), then prints what it counted.
 *
 *   cachesim [--pull] [--regs] [--memory] PINBALL
 *
 * --pull reads instructions with ptr_replay_next (default: ptr_replay_run's callback);
 * --regs asks for the registers and checks them: every thread's first instruction sees
 * its start state, and an instruction that writes no general-purpose register leaves all
 * sixteen as they were; --memory asks for the region's memory at its start and checks
 * that the first instruction's bytes are there at its pc. Build it against an installed library
 * with cc cachesim.c $(pkg-config --cflags --libs pintrace-replay) -o cachesim */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <pintrace_replay.h>

enum { SETS = 64, WAYS = 8, LINE = 64, HISTORY_BITS = 14, TARGETS = 4096, RAS = 16, TIDS = 1024 };

struct sim {
	/* the cache: tags and last use per way */
	uint64_t tag[SETS][WAYS], used[SETS][WAYS], clock;
	bool valid[SETS][WAYS];
	uint64_t accesses, misses, reads, writes;
	/* the predictors */
	uint8_t counter[1 << HISTORY_BITS];
	uint32_t history;
	uint64_t target[TARGETS];
	uint64_t ras[RAS];
	unsigned ras_top;
	uint64_t conditional, cond_miss, indirect, indirect_miss, returns, return_miss;
	uint64_t instructions;
	/* --regs, --memory */
	bool check_regs, check_memory, seen[TIDS];
	uint64_t ranges, bytes, code_checked, code_wrong;
	const struct ptr_replay *replay;
	uint64_t regs_checked, regs_wrong;
};

static void access_line(struct sim *s, uint64_t line)
{
	uint64_t set = line % SETS, tag = line / SETS;
	s->accesses++;
	s->clock++;
	int victim = 0;
	for (int w = 0; w < WAYS; w++) {
		if (s->valid[set][w] && s->tag[set][w] == tag) {
			s->used[set][w] = s->clock;
			return;
		}
		if (!s->valid[set][w] || s->used[set][w] < s->used[set][victim])
			victim = s->valid[set][victim] ? w : victim;
	}
	s->misses++;
	s->valid[set][victim] = true;
	s->tag[set][victim] = tag;
	s->used[set][victim] = s->clock;
}

static void memory(struct sim *s, const struct ptr_insn *in)
{
	for (unsigned m = 0; m < in->nmem; m++) {
		const struct ptr_mem_access *a = &in->mem[m];
		s->reads += a->read;
		s->writes += a->write;
		uint64_t first = a->address / LINE,
			 last = (a->address + (a->size ? a->size : 1) - 1) / LINE;
		for (uint64_t line = first; line <= last; line++)
			access_line(s, line);
	}
}

static void branch(struct sim *s, const struct ptr_insn *in)
{
	switch (in->branch) {
	case PTR_CONDITIONAL:
	case PTR_RCX_BRANCH: {
		uint32_t i = (uint32_t)((in->pc >> 2) ^ s->history) & ((1u << HISTORY_BITS) - 1);
		bool predicted = s->counter[i] >= 2;
		s->conditional++;
		s->cond_miss += predicted != in->taken;
		if (in->taken && s->counter[i] < 3)
			s->counter[i]++;
		if (!in->taken && s->counter[i] > 0)
			s->counter[i]--;
		s->history = (s->history << 1) | in->taken;
		break;
	}
	case PTR_JUMP_INDIRECT:
	case PTR_CALL_INDIRECT: {
		uint64_t *t = &s->target[(in->pc >> 2) % TARGETS];
		s->indirect++;
		s->indirect_miss += in->next_pc && *t != in->next_pc;
		*t = in->next_pc;
		break;
	}
	case PTR_RETURN:
		s->returns++;
		s->return_miss += !s->ras_top || s->ras[(s->ras_top - 1) % RAS] != in->next_pc;
		if (s->ras_top)
			s->ras_top--;
		break;
	default:
		break;
	}
	if (in->branch == PTR_CALL || in->branch == PTR_CALL_INDIRECT)
		s->ras[s->ras_top++ % RAS] = in->pc + in->length;
}

/* Whether the instruction writes a general-purpose register (explicitly or not). */
static bool writes_gpr(const struct ptr_insn *in)
{
	for (unsigned i = 0; i < in->decoded->operand_count; i++) {
		const ZydisDecodedOperand *op = &in->operands[i];
		if (op->type != ZYDIS_OPERAND_TYPE_REGISTER ||
		    !(op->actions & ZYDIS_OPERAND_ACTION_MASK_WRITE))
			continue;
		ZydisRegisterClass c = ZydisRegisterGetClass(op->reg.value);
		if (c == ZYDIS_REGCLASS_GPR8 || c == ZYDIS_REGCLASS_GPR16 ||
		    c == ZYDIS_REGCLASS_GPR32 || c == ZYDIS_REGCLASS_GPR64)
			return true;
	}
	return false;
}

static void check_regs(struct sim *s, const struct ptr_insn *in)
{
	if (in->tid < TIDS && !s->seen[in->tid]) {
		s->seen[in->tid] = true;
		for (size_t i = 0; i < ptr_replay_threads(s->replay); i++) {
			const struct ptr_thread_state *t = ptr_replay_thread(s->replay, i);
			if (t->tid == in->tid && t->at_start) {
				/* (rax: a thread inside a syscall starts with its result) */
				int from = t->in_syscall ? 1 : 0;
				s->regs_checked++;
				s->regs_wrong +=
				    memcmp(t->gpr + from, in->regs_before + from,
					   sizeof t->gpr - from * sizeof t->gpr[0]) != 0 ||
				    t->rip != in->pc;
			}
		}
	}
	if (in->regs_after && !writes_gpr(in)) {
		s->regs_checked++;
		s->regs_wrong +=
		    memcmp(in->regs_before, in->regs_after, 16 * sizeof(uint64_t)) != 0;
	}
}

struct code_probe {
	const struct ptr_insn *in;
	bool found, same;
};

static int find_code(uint64_t addr, uint32_t prot, const void *data, uint64_t len, void *arg)
{
	(void)prot;
	struct code_probe *p = arg;
	if (p->in->pc < addr || p->in->pc + p->in->length > addr + len)
		return 0;
	p->found = true;
	p->same = !memcmp((const uint8_t *)data + (p->in->pc - addr), p->in->bytes, p->in->length);
	return 1;
}

static int count_memory(uint64_t addr, uint32_t prot, const void *data, uint64_t len, void *arg)
{
	(void)addr;
	(void)prot;
	(void)data;
	struct sim *s = arg;
	s->ranges++;
	s->bytes += len;
	return 0;
}

static void simulate(const struct ptr_insn *in, void *arg)
{
	struct sim *s = arg;
	if (s->check_memory && !s->instructions) {
		struct code_probe p = {in, false, false};
		ptr_replay_memory(s->replay, find_code, &p);
		s->code_checked++;
		s->code_wrong += !p.found || !p.same;
	}
	s->instructions++;
	memory(s, in);
	branch(s, in);
	if (s->check_regs)
		check_regs(s, in);
}

static double percent(uint64_t part, uint64_t whole)
{
	return whole ? 100.0 * (double)part / (double)whole : 0;
}

int main(int argc, char **argv)
{
	bool pull = false;
	static struct sim s;
	const char *pinball = NULL;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--pull"))
			pull = true;
		else if (!strcmp(argv[i], "--regs"))
			s.check_regs = true;
		else if (!strcmp(argv[i], "--memory"))
			s.check_memory = true;
		else
			pinball = argv[i];
	}
	if (!pinball) {
		fprintf(stderr, "usage: cachesim [--pull] [--regs] [--memory] PINBALL\n");
		return 2;
	}
	char err[1024];
	unsigned flags = (s.check_regs ? PTR_REGS : 0) | (s.check_memory ? PTR_MEMORY : 0);
	struct ptr_replay *r = ptr_replay_open(pinball, flags, err, sizeof err);
	if (!r) {
		fprintf(stderr, "cachesim: %s\n", err);
		return 2;
	}
	s.replay = r;
	int rc;
	if (pull) {
		const struct ptr_insn *in;
		while ((rc = ptr_replay_next(r, &in)) > 0)
			simulate(in, &s);
	} else {
		rc = ptr_replay_run(r, simulate, &s);
	}
	printf("instructions %lu\nthreads %zu\n", s.instructions, ptr_replay_threads(r));
	printf("memory reads %lu writes %lu\n", s.reads, s.writes);
	printf("l1d accesses %lu misses %lu (%.2f%%)\n", s.accesses, s.misses,
	       percent(s.misses, s.accesses));
	printf("conditional branches %lu mispredicted %lu (%.2f%%)\n", s.conditional, s.cond_miss,
	       percent(s.cond_miss, s.conditional));
	printf("indirect branches %lu mispredicted %lu\n", s.indirect, s.indirect_miss);
	printf("returns %lu mispredicted %lu\n", s.returns, s.return_miss);
	if (s.check_regs)
		printf("registers checked %lu wrong %lu\n", s.regs_checked, s.regs_wrong);
	if (s.check_memory) {
		ptr_replay_memory(r, count_memory, &s);
		printf("memory ranges %lu bytes %lu code checked %lu wrong %lu\n", s.ranges,
		       s.bytes, s.code_checked, s.code_wrong);
	}
	char verdict[1024];
	int ok = ptr_replay_close(r, verdict, sizeof verdict);
	fprintf(stderr, "cachesim: %s\n", verdict);
	return rc < 0 || ok ? 1 : 0;
}

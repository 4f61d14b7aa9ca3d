#include "cpuid_table.h"

#include <cpuid.h>
#include <fcntl.h>
#include <string.h>
#include <sys/syscall.h>

#include "block.h"
#include "persist_dir.h"
#include "rt_format.h"
#include "rt_syscall.h"
#include "thread_block.h"

/* Half of it at most for the leaves kept per CPU, which a machine of many CPUs could fill. */
enum { TABLE_MAX = 256 };

struct answer {
	uint32_t leaf, sub;
	uint32_t cpu;  /* for a leaf that names the CPU: the CPU's number + 1; else 0 */
	uint32_t r[4]; /* eax, ebx, ecx, edx */
};

/* Under the runtime's lock, as every callout and translation. */
static struct answer table[TABLE_MAX];
static unsigned count;
static unsigned in_file; /* the entries the session's file held, or this process wrote */
static const char *dir;
static uint64_t answered, asked;

/* Leaves whose answer depends on the CPU that runs the instruction: answered per CPU. */
static bool names_the_cpu(uint32_t leaf)
{
	switch (leaf) {
	case 0x1:	 /* EBX: the initial APIC id */
	case 0xb:	 /* EDX: the x2APIC id */
	case 0x1a:	 /* the core's type, on hybrid parts */
	case 0x1f:	 /* EDX: the x2APIC id */
	case 0x8000001e: /* AMD: the extended APIC id */
		return true;
	default:
		return false;
	}
}

/* Leaves that ignore ECX (C libraries leave whatever was there): one entry each, not one
 * per value. Every other leaf is told apart by its subleaf. */
static bool ignores_subleaf(uint32_t leaf)
{
	switch (leaf) {
	case 0x0:
	case 0x1:
	case 0x2:
	case 0x3:
	case 0x5:
	case 0x6:
	case 0xa:
	case 0x15:
	case 0x16:
	case 0x80000000:
	case 0x80000001:
	case 0x80000002:
	case 0x80000003:
	case 0x80000004:
	case 0x80000005:
	case 0x80000006:
	case 0x80000007:
	case 0x80000008:
	case 0x8000001e:
		return true;
	default:
		return false;
	}
}

static void path_of(char *out, size_t size, const char *name)
{
	rt_format(out, size, "%s/%s", dir, name);
}

void cpuid_table_start(const char *session_dir)
{
	dir = session_dir;
	if (!dir)
		return;
	char path[4096];
	path_of(path, sizeof path, "cpuid");
	long fd = rt_openat(AT_FDCWD, path, O_RDONLY | O_CLOEXEC, 0);
	if (fd < 0)
		return;
	long n = rt_read((int)fd, table, sizeof table);
	rt_close((int)fd);
	count = n > 0 ? (unsigned)((size_t)n / sizeof table[0]) : 0;
	in_file = count;
}

void cpuid_table_save(bool at_exit)
{
	if (!dir || count <= in_file || (at_exit && persist_session_owner(dir) == rt_getpid()))
		return;
	char path[4096], tmp[4096];
	path_of(path, sizeof path, "cpuid");
	rt_format(tmp, sizeof tmp, "%s/cpuid.%ld", dir, rt_getpid());
	long fd = rt_openat(AT_FDCWD, tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0)
		return;
	size_t bytes = count * sizeof table[0];
	bool written = rt_write_all((int)fd, table, bytes) == (long)bytes;
	rt_close((int)fd);
	/* (whole or not at all: a process reading it meanwhile sees the old one) */
	if (written && rt_syscall2(SYS_rename, (long)tmp, (long)path) == 0)
		in_file = count;
	else
		rt_syscall1(SYS_unlink, (long)tmp);
}

static const struct answer *find(uint32_t leaf, uint32_t sub, uint32_t cpu)
{
	for (unsigned i = 0; i < count; i++)
		if (table[i].leaf == leaf && table[i].sub == sub && table[i].cpu == cpu)
			return &table[i];
	return NULL;
}

/* The number + 1 of the CPU the thread runs on (a system call: a fraction of a cpuid's
 * trap); 0 when unknown. */
static uint32_t current_cpu(void)
{
	unsigned cpu = 0;
	return rt_syscall3(SYS_getcpu, (long)&cpu, 0, 0) == 0 ? cpu + 1 : 0;
}

/* Whether the table had the answer. A leaf that names the CPU is kept under the CPU that
 * answered, when the thread ran on it before and after (it did not move meanwhile): the
 * answer is then the one the CPU it runs on would give, as exact as natively, where the
 * thread may move right after its cpuid. */
static bool lookup(uint32_t leaf, uint32_t subleaf, uint32_t out[4])
{
	uint32_t key = ignores_subleaf(leaf) ? 0 : subleaf;
	uint32_t cpu = names_the_cpu(leaf) ? current_cpu() : 0;
	const struct answer *a = names_the_cpu(leaf) && !cpu ? NULL : find(leaf, key, cpu);
	if (a) {
		memcpy(out, a->r, sizeof a->r);
		return true;
	}
	__cpuid_count(leaf, subleaf, out[0], out[1], out[2], out[3]);
	bool keep = !names_the_cpu(leaf) || (cpu && count < TABLE_MAX / 2 && current_cpu() == cpu);
	if (keep && count < TABLE_MAX) {
		table[count] = (struct answer){leaf, key, cpu, {out[0], out[1], out[2], out[3]}};
		count++;
	}
	return false;
}

void jit_cpuid(uint32_t leaf, uint32_t subleaf, uint32_t out[4])
{
	lookup(leaf, subleaf, out);
}

void cpuid_table_answer(const struct jit_callout *c)
{
	struct jit_thread *t = c->thread;
	uint32_t r[4];
	if (lookup((uint32_t)t->gpr[JIT_GPR_RAX], (uint32_t)t->gpr[JIT_GPR_RCX], r))
		answered++;
	else
		asked++;
	t->gpr[JIT_GPR_RAX] = r[0];
	t->gpr[JIT_GPR_RBX] = r[1];
	t->gpr[JIT_GPR_RCX] = r[2];
	t->gpr[JIT_GPR_RDX] = r[3];
}

void cpuid_table_instrument(struct jit_block *b)
{
	for (size_t i = 0; i < b->length; i++) {
		struct block_insn *bi = &b->insns[i];
		if (bi->insn.mnemonic != ZYDIS_MNEMONIC_CPUID || bi->callout_count ||
		    bi->suppressed)
			continue;
		/* (an argument of its own: a restarted block leaves out the callouts already
		 * run at its first instruction by their arguments) */
		jit_insert_callout(b, i, cpuid_table_answer, table);
		if (bi->callout_count)
			jit_suppress_insn(b, i);
	}
}

uint64_t cpuid_table_answered(void)
{
	return answered;
}

uint64_t cpuid_table_asked(void)
{
	return asked;
}

#include "header.h"

#include <cpuid.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "jit.h"

enum { MAX_LEAVES = 8, MAX_COMPONENTS = 19 };

static struct pinball_cpuid_leaf leaves[MAX_LEAVES];
static struct pinball_xsave_component components[MAX_COMPONENTS];
static char vendor[13];

static void add_leaf(size_t *n, uint32_t leaf, uint32_t sub)
{
	unsigned a, b, c, d;
	if (*n < MAX_LEAVES && __get_cpuid_count(leaf, sub, &a, &b, &c, &d))
		leaves[(*n)++] = (struct pinball_cpuid_leaf){leaf, sub, a, b, c, d};
}

static void describe_cpu(struct pinball_header *h)
{
	unsigned a = 0, b = 0, c = 0, d = 0;
	__get_cpuid(0, &a, &b, &c, &d);
	memcpy(vendor, &b, 4);
	memcpy(vendor + 4, &d, 4);
	memcpy(vendor + 8, &c, 4);
	__get_cpuid(1, &a, &b, &c, &d);
	unsigned family = (a >> 8) & 0xf, model = (a >> 4) & 0xf;
	if (family == 0xf)
		family += (a >> 20) & 0xff;
	if (family >= 6)
		model |= ((a >> 16) & 0xf) << 4;
	h->cpu_vendor = vendor;
	h->cpu_family = family;
	h->cpu_model = model;
	h->cpu_stepping = a & 0xf;
	size_t n = 0;
	add_leaf(&n, 0, 0);
	add_leaf(&n, 1, 0);
	add_leaf(&n, 7, 0);
	add_leaf(&n, 0xd, 0);
	add_leaf(&n, 0xd, 1);
	add_leaf(&n, 0x80000001, 0);
	h->ncpuid = n;
	h->cpuid = leaves;
	uint32_t lo, hi;
	__asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
	h->xcr0 = (uint64_t)hi << 32 | lo;
	__get_cpuid_count(0xd, 0, &a, &b, &c, &d);
	h->xsave_size = b;
	size_t k = 0;
	for (uint32_t i = 2; i < MAX_COMPONENTS && k < MAX_COMPONENTS; i++) {
		if (!(h->xcr0 & (1ull << i)))
			continue;
		__get_cpuid_count(0xd, i, &a, &b, &c, &d);
		components[k++] = (struct pinball_xsave_component){i, b, a};
	}
	h->nxsave_components = k;
	h->xsave_components = components;
}

void header_describe_run(struct pinball_header *h, int argc, char *const *argv, char *const *envp)
{
	memset(h, 0, sizeof *h);
	h->tool_version = "pintrace " PINTRACE_VERSION;
	h->argc = (size_t)argc;
	h->argv = (const char *const *)argv;
	h->cwd = getcwd(NULL, 0);
	for (char *const *e = envp; e && *e; e++) {
		h->env_count++;
		h->env_bytes += strlen(*e) + 1;
	}
	h->arch = "x86_64";
	describe_cpu(h);
	h->page_size = 4096;
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	h->creation_time_ns = (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
	h->pid = (uint32_t)getpid();
}

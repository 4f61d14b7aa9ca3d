/* A ChampSim trace reader written for the tests, from the record layout alone (64 bytes:
 * ip, is_branch, branch_taken, 2 destination and 4 source register bytes, 2 destination
 * and 4 source 8-byte addresses; zero is "none"). It checks every record and classifies
 * branches the way ChampSim's reader does, from the registers: 6 is the stack pointer, 25
 * the flags, 26 the instruction pointer.
 *
 *   champsim_reader --dump N < TRACE    the first N records, one a line
 *   champsim_reader --counts < TRACE    what the trace holds (see print_counts)
 *
 * Exit 1 (with the record's number) on a malformed record: a set with a value after an
 * empty entry or a repeated value, is_branch or branch_taken not 0 or 1, a taken non-branch,
 * an ip of 0, or a trace whose length is no multiple of 64. */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { SP = 6, FLAGS = 25, IP = 26 };

struct record {
	uint64_t ip;
	uint8_t is_branch, taken;
	uint8_t dst[2], src[4];
	uint64_t dmem[2], smem[4];
};

static void decode(const uint8_t *b, struct record *r)
{
	memcpy(&r->ip, b, 8);
	r->is_branch = b[8];
	r->taken = b[9];
	memcpy(r->dst, b + 10, 2);
	memcpy(r->src, b + 12, 4);
	for (int i = 0; i < 2; i++)
		memcpy(&r->dmem[i], b + 16 + 8 * i, 8);
	for (int i = 0; i < 4; i++)
		memcpy(&r->smem[i], b + 32 + 8 * i, 8);
}

/* Entries used first, none repeated; returns how many are used, -1 when malformed. */
static int set_size(const uint64_t *v, int n)
{
	int used = 0;
	while (used < n && v[used])
		used++;
	for (int i = used; i < n; i++)
		if (v[i])
			return -1;
	for (int i = 0; i < used; i++)
		for (int j = i + 1; j < used; j++)
			if (v[i] == v[j])
				return -1;
	return used;
}

static int reg_set_size(const uint8_t *r, int n)
{
	uint64_t v[4];
	for (int i = 0; i < n; i++)
		v[i] = r[i];
	return set_size(v, n);
}

static bool has(const uint8_t *r, int n, uint8_t reg)
{
	for (int i = 0; i < n; i++)
		if (r[i] == reg)
			return true;
	return false;
}

enum kind { DIRECT_JUMP, INDIRECT, CONDITIONAL, DIRECT_CALL, INDIRECT_CALL, RETURN, OTHER, NONE };

static enum kind classify(const struct record *r)
{
	bool writes_sp = has(r->dst, 2, SP), writes_ip = has(r->dst, 2, IP);
	bool reads_sp = has(r->src, 4, SP), reads_flags = has(r->src, 4, FLAGS);
	bool reads_ip = has(r->src, 4, IP), reads_other = false;
	for (int i = 0; i < 4; i++)
		if (r->src[i] && r->src[i] != SP && r->src[i] != FLAGS && r->src[i] != IP)
			reads_other = true;
	if (!reads_sp && !reads_flags && writes_ip && !reads_other)
		return DIRECT_JUMP;
	if (!reads_sp && !reads_ip && !reads_flags && writes_ip && reads_other)
		return INDIRECT;
	if (!reads_sp && reads_ip && !writes_sp && writes_ip && (reads_flags || reads_other))
		return CONDITIONAL;
	if (reads_sp && reads_ip && writes_sp && writes_ip && !reads_flags && !reads_other)
		return DIRECT_CALL;
	if (reads_sp && reads_ip && writes_sp && writes_ip && !reads_flags && reads_other)
		return INDIRECT_CALL;
	if (reads_sp && !reads_ip && writes_sp && writes_ip)
		return RETURN;
	return writes_ip ? OTHER : NONE;
}

static bool valid(const struct record *r)
{
	return r->ip && r->is_branch <= 1 && r->taken <= 1 && r->taken <= r->is_branch &&
	       reg_set_size(r->dst, 2) >= 0 && reg_set_size(r->src, 4) >= 0 &&
	       set_size(r->dmem, 2) >= 0 && set_size(r->smem, 4) >= 0;
}

static void dump(const struct record *r)
{
	printf(
	    "0x%lx %u %u dst=%u,%u src=%u,%u,%u,%u dmem=0x%lx,0x%lx smem=0x%lx,0x%lx,0x%lx,0x%lx\n",
	    r->ip, r->is_branch, r->taken, r->dst[0], r->dst[1], r->src[0], r->src[1], r->src[2],
	    r->src[3], r->dmem[0], r->dmem[1], r->smem[0], r->smem[1], r->smem[2], r->smem[3]);
}

int main(int argc, char **argv)
{
	bool counts = argc == 2 && !strcmp(argv[1], "--counts");
	long limit = argc == 3 && !strcmp(argv[1], "--dump") ? atol(argv[2]) : -1;
	if (!counts && limit < 0) {
		fprintf(stderr, "usage: champsim_reader --dump N | --counts < TRACE\n");
		return 2;
	}
	static const char *const names[] = {"direct_jump", "indirect_jump", "conditional",
					    "direct_call", "indirect_call", "return",
					    "other"};
	uint64_t n = 0, branches = 0, taken = 0, reads = 0, writes = 0, kinds[NONE + 1] = {0};
	uint8_t b[64];
	size_t got;
	while ((got = fread(b, 1, sizeof b, stdin)) == sizeof b) {
		struct record r;
		decode(b, &r);
		if (!valid(&r)) {
			fprintf(stderr, "record %lu is malformed: ", n);
			dump(&r);
			return 1;
		}
		if ((long)n < limit)
			dump(&r);
		branches += r.is_branch;
		taken += r.taken;
		reads += (uint64_t)set_size(r.smem, 4);
		writes += (uint64_t)set_size(r.dmem, 2);
		kinds[classify(&r)]++;
		n++;
	}
	if (got) {
		fprintf(stderr, "the trace ends with %zu bytes of a record\n", got);
		return 1;
	}
	if (counts) {
		printf("records %lu\nis_branch %lu\nbranch_taken %lu\nmemory_reads %lu\n"
		       "memory_writes %lu\n",
		       n, branches, taken, reads, writes);
		for (int k = 0; k < NONE; k++)
			printf("%s %lu\n", names[k], kinds[k]);
	}
	return 0;
}

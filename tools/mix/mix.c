#include "mix.h"

#include <string.h>

#include "block_counts.h"
#include "instrument.h"
#include "jit_messages.h"
#include "report.h"
#include "rt_alloc.h"
#include "rt_format.h"
#include "rt_sort.h"
#include "xed_zydis.h"

enum {
	MNEMONICS = ZYDIS_MNEMONIC_MAX_VALUE + 1,
	CATEGORIES = ZYDIS_CATEGORY_MAX_VALUE + 1,
	EXTENSIONS = ZYDIS_ISA_EXT_MAX_VALUE + 1,
	REP_KINDS = 4, /* none, REP, REPE, REPNE */
};

struct histogram {
	uint64_t instructions;
	uint64_t memory_reads, memory_writes; /* memory operands read and written */
	uint64_t mnemonic[REP_KINDS][MNEMONICS];
	uint64_t category[CATEGORIES];
	uint64_t extension[EXTENSIONS];
};

static const char *output;

static void tally(const struct counted_block *b, uint32_t first, uint32_t end, uint64_t times,
		  void *arg)
{
	struct histogram *h = arg;
	for (uint32_t i = first; i < end; i++) {
		const struct counted_insn *in = &b->insns[i];
		h->instructions += times;
		h->memory_reads += times * in->mem_reads;
		h->memory_writes += times * in->mem_writes;
		h->mnemonic[in->rep][in->mnemonic] += times;
		h->category[in->category] += times;
		h->extension[in->isa_ext] += times;
	}
}

struct line {
	char name[48];
	uint64_t count;
};

static void upper_copy(char *dst, size_t cap, const char *prefix, const char *name)
{
	size_t n = rt_format(dst, cap, "%s%s", prefix, name ? name : "?");
	for (size_t i = 0; i < n && dst[i]; i++)
		if (dst[i] >= 'a' && dst[i] <= 'z')
			dst[i] = (char)(dst[i] - 'a' + 'A');
}

/* Largest count first, then by name: a stable order for readers and tests. */
static int by_count_then_name(const void *a, const void *b)
{
	const struct line *x = a, *y = b;
	if (x->count != y->count)
		return x->count > y->count ? -1 : 1;
	return strcmp(x->name, y->name);
}

static void print_lines(int fd, const char *scope, const char *kind, struct line *v, size_t n)
{
	rt_sort(v, n, sizeof *v, by_count_then_name);
	for (size_t i = 0; i < n; i++)
		rt_dprintf(fd, "mix %s %s %s %lu\n", scope, kind, v[i].name, v[i].count);
}

/* The name of entry i of a histogram, and the prefix it takes. */
typedef const char *(*name_fn)(int i, const char **prefix);

static const char *extension_name(int e, const char **prefix)
{
	const char *xed = xed_extension_of_zydis((ZydisISAExt)e);
	*prefix = "";
	return xed ? xed : ZydisISAExtGetString((ZydisISAExt)e);
}

static const char *category_name(int c, const char **prefix)
{
	const char *xed = xed_category_of_zydis((ZydisInstructionCategory)c);
	*prefix = "";
	return xed ? xed : ZydisCategoryGetString((ZydisInstructionCategory)c);
}

/* Entry i of the mnemonic histogram: REP kind i / MNEMONICS, mnemonic i % MNEMONICS. */
static const char *mnemonic_name(int i, const char **prefix)
{
	static const char *const rep_prefix[REP_KINDS] = {"", "REP_", "REPE_", "REPNE_"};
	*prefix = rep_prefix[i / MNEMONICS];
	return ZydisMnemonicGetString((ZydisMnemonic)(i % MNEMONICS));
}

static void print_kind(int fd, const char *scope, const char *kind, const uint64_t *counts, int n,
		       name_fn name, struct line *v)
{
	size_t k = 0;
	for (int i = 0; i < n; i++) {
		if (!counts[i])
			continue;
		const char *prefix;
		const char *base = name(i, &prefix);
		upper_copy(v[k].name, sizeof v[k].name, prefix, base);
		v[k++].count = counts[i];
	}
	print_lines(fd, scope, kind, v, k);
}

static void print(int fd, const char *scope, const struct histogram *h, struct line *v)
{
	rt_dprintf(fd, "mix %s instructions %lu\n", scope, h->instructions);
	rt_dprintf(fd, "mix %s memory reads %lu\n", scope, h->memory_reads);
	rt_dprintf(fd, "mix %s memory writes %lu\n", scope, h->memory_writes);
	print_kind(fd, scope, "extension", h->extension, EXTENSIONS, extension_name, v);
	print_kind(fd, scope, "category", h->category, CATEGORIES, category_name, v);
	print_kind(fd, scope, "mnemonic", &h->mnemonic[0][0], REP_KINDS * MNEMONICS, mnemonic_name,
		   v);
}

static void add_into(struct histogram *total, const struct histogram *h)
{
	total->instructions += h->instructions;
	total->memory_reads += h->memory_reads;
	total->memory_writes += h->memory_writes;
	for (int r = 0; r < REP_KINDS; r++)
		for (int m = 0; m < MNEMONICS; m++)
			total->mnemonic[r][m] += h->mnemonic[r][m];
	for (int c = 0; c < CATEGORIES; c++)
		total->category[c] += h->category[c];
	for (int e = 0; e < EXTENSIONS; e++)
		total->extension[e] += h->extension[e];
}

static void write_report(int fd)
{
	struct histogram *h = rt_calloc(2, sizeof *h);
	struct line *lines = rt_calloc(REP_KINDS * MNEMONICS, sizeof *lines);
	if (!h || !lines) {
		jit_message("error: -mix: out of memory for the report");
		return;
	}
	for (size_t i = 0; i < jit_thread_count(); i++) {
		uint32_t tid = jit_thread_id(jit_thread_at(i));
		memset(&h[0], 0, sizeof h[0]);
		block_counts_for_thread(tid, tally, &h[0]);
		char scope[24];
		rt_format(scope, sizeof scope, "tid=%u", tid);
		print(fd, scope, &h[0], lines);
		add_into(&h[1], &h[0]);
	}
	print(fd, "total", &h[1], lines);
	if (block_counts_threads_dropped())
		jit_message("warning: -mix: %u threads beyond the tool's limit were not counted",
			    block_counts_threads_dropped());
	if (block_counts_blocks_dropped())
		jit_message("warning: -mix: %lu blocks beyond the tool's limit were not counted",
			    block_counts_blocks_dropped());
}

static void report(int status, void *arg)
{
	(void)status;
	(void)arg;
	report_write(output, write_report);
}

static const struct jit_client client = {
    .name = "mix",
    .at_exit = report,
};

int mix_tool_register(const char *output_path, char *err, size_t errlen)
{
	output = output_path;
	if (block_counts_register(err, errlen))
		return -1;
	jit_register_client(&client);
	return 0;
}

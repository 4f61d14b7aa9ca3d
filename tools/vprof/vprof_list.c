#include "vprof_list.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <Zydis/Zydis.h>

#include "vprof_db.h"
#include "vprof_plugin.h"
#include "vprof_profile.h"
#include "vprof_source.h"
#include "vprof_spec.h"

enum { VALUE_TEXT = 128 };

/* What formats the values: the plug-in with its specification, or nothing (hexadecimal). */
struct formatter {
	struct vp_plugin plugin;
	bool loaded;
	struct vp_spec spec;
	ZydisDecoder decoder;
	ZydisFormatter intel;
};

static int by_executions(const void *a, const void *b)
{
	const struct vp_stat *x = *(struct vp_stat *const *)a, *y = *(struct vp_stat *const *)b;
	if (x->executions != y->executions)
		return x->executions < y->executions ? 1 : -1;
	return x->pc < y->pc ? -1 : x->pc > y->pc;
}

static int by_value(const void *a, const void *b)
{
	uint64_t x = ((const struct vp_count *)a)->value, y = ((const struct vp_count *)b)->value;
	return x < y ? -1 : x > y;
}

static int by_count(const void *a, const void *b)
{
	const struct vp_count *x = a, *y = b;
	if (x->count != y->count)
		return x->count < y->count ? 1 : -1;
	return by_value(a, b);
}

/* The instruction's samples a row per value, contexts added up. */
static size_t merge_contexts(const struct vp_stat *s, struct vp_count *rows)
{
	memcpy(rows, s->values, s->nvalues * sizeof *rows);
	qsort(rows, s->nvalues, sizeof *rows, by_value);
	size_t n = 0;
	for (uint32_t i = 0; i < s->nvalues; i++) {
		if (n && rows[n - 1].value == rows[i].value) {
			rows[n - 1].count += rows[i].count;
			continue;
		}
		rows[n] = rows[i];
		rows[n].context[0] = rows[n].context[1] = 0;
		n++;
	}
	qsort(rows, n, sizeof *rows, by_count);
	return n;
}

static void format_value(const struct formatter *f, const struct vprof_insn *insn, uint64_t v,
			 char *buf)
{
	if (f->loaded && f->plugin.table->format) {
		f->plugin.table->format(insn, v, buf, VALUE_TEXT);
		buf[VALUE_TEXT - 1] = '\0';
	} else {
		snprintf(buf, VALUE_TEXT, "0x%" PRIx64, v);
	}
}

/* The instruction as the plug-in saw it when profiling (its values described by the
 * specification), and its text. */
static void describe(const struct formatter *f, const struct vp_stat *s, struct vprof_insn *insn,
		     char *text, size_t cap)
{
	memset(insn, 0, sizeof *insn);
	insn->pc = s->pc;
	snprintf(text, cap, "(no instruction bytes)");
	ZydisDecodedInstruction d;
	ZydisDecodedOperand ops[ZYDIS_MAX_OPERAND_COUNT];
	if (!s->length ||
	    ZYAN_FAILED(ZydisDecoderDecodeFull(&f->decoder, s->bytes, s->length, &d, ops)))
		return;
	ZydisFormatterFormatInstruction(&f->intel, &d, ops, d.operand_count_visible, text, cap,
					s->pc, NULL);
	struct vp_capture how[VPROF_MAX_VALUES];
	if (!f->loaded || !vp_spec_describe(&f->spec, s->pc, &d, ops, s->bytes, insn, how)) {
		insn->length = s->length;
		memcpy(insn->bytes, s->bytes, s->length);
		insn->mnemonic = ZydisMnemonicGetString(d.mnemonic);
		insn->category = ZydisCategoryGetString(d.meta.category);
	}
}

static void print_rows(const struct formatter *f, const struct vp_list_options *o,
		       const struct vp_profile *p, const struct vprof_insn *insn,
		       const struct vp_stat *s, const struct vp_count *rows, size_t n, FILE *out)
{
	char v[VALUE_TEXT];
	size_t shown = n < o->top ? n : o->top;
	uint64_t rest = 0;
	for (size_t i = 0; i < n; i++) {
		if (i >= shown) {
			rest += rows[i].count;
			continue;
		}
		format_value(f, insn, rows[i].value, v);
		fprintf(out, "    %12" PRIu64 " %7.2f%%  %s", rows[i].count,
			100.0 * (double)rows[i].count / (double)s->samples, v);
		if (o->contexts)
			fprintf(out, "  [thread %" PRIu64 ", called from 0x%" PRIx64 "]",
				rows[i].context[0], rows[i].context[1]);
		fputc('\n', out);
	}
	if (rest)
		fprintf(out, "    %12" PRIu64 " %7.2f%%  (%zu more values)\n", rest,
			100.0 * (double)rest / (double)s->samples, n - shown);
	if (s->other)
		fprintf(out,
			"    %12" PRIu64 " %7.2f%%  (values not kept: more than %u distinct)\n",
			s->other, 100.0 * (double)s->other / (double)s->samples, p->values_kept);
}

static void print_insn(const struct formatter *f, const struct vp_list_options *o,
		       const struct vp_profile *p, const struct vp_stat *s, uint64_t total,
		       const struct vp_where *where, FILE *out)
{
	struct vprof_insn insn;
	char text[160];
	describe(f, s, &insn, text, sizeof text);
	fprintf(out, "0x%" PRIx64 "  %" PRIu64 " executions (%.2f%%)  %s", s->pc, s->executions,
		total ? 100.0 * (double)s->executions / (double)total : 0.0, text);
	if (where->function || where->line)
		fprintf(out, "  ; %s %s", where->function ? where->function : "?",
			where->line ? where->line : "");
	fputc('\n', out);
	const char *preface = "value";
	if (f->loaded && f->plugin.table->preface)
		preface = f->plugin.table->preface(&insn);
	if (!preface || !s->samples)
		return;
	struct vp_count *rows = malloc((s->nvalues + 1) * sizeof *rows);
	if (!rows)
		return;
	size_t n = s->nvalues;
	if (o->contexts)
		memcpy(rows, s->values, n * sizeof *rows);
	else
		n = merge_contexts(s, rows);
	char lo[VALUE_TEXT], hi[VALUE_TEXT];
	format_value(f, &insn, s->min, lo);
	format_value(f, &insn, s->max, hi);
	fprintf(out,
		"  %s: %" PRIu64 " samples, %zu%s distinct, invariance %.2f%%, range %s .. %s\n",
		preface, s->samples, n, s->other ? "+" : "",
		n ? 100.0 * (double)rows[0].count / (double)s->samples : 0.0, lo, hi);
	print_rows(f, o, p, &insn, s, rows, n, out);
	free(rows);
}

/* The plug-in named on the command line (a failure is an error), or the profile's own (a
 * failure leaves the values in hexadecimal). */
static int load_formatter(const struct vp_profile *p, const char *plugin, struct formatter *f,
			  char *err, size_t errlen)
{
	ZydisDecoderInit(&f->decoder, ZYDIS_MACHINE_MODE_LONG_64, ZYDIS_STACK_WIDTH_64);
	ZydisFormatterInit(&f->intel, ZYDIS_FORMATTER_STYLE_INTEL);
	char why[1024];
	if (vp_plugin_load(plugin ? plugin : p->plugin, &f->plugin, why, sizeof why)) {
		if (plugin) {
			snprintf(err, errlen, "%s", why);
			return -1;
		}
		fprintf(stderr, "pinball: warning: %s; values in hexadecimal\n", why);
		return 0;
	}
	char spec_err[512];
	if (vp_spec_compile(f->plugin.table->prof_init(), &f->spec, spec_err, sizeof spec_err)) {
		snprintf(err, errlen, "value profiler '%s': its specification: %s", f->plugin.path,
			 spec_err);
		vp_plugin_unload(&f->plugin);
		return -1;
	}
	f->loaded = true;
	return 0;
}

int vp_list(const char *file, const struct vp_list_options *o, FILE *out, char *err, size_t errlen)
{
	struct vp_profile *p = vp_db_read(file, err, errlen);
	if (!p)
		return -1;
	static struct formatter f;
	if (load_formatter(p, o->plugin, &f, err, errlen)) {
		vp_profile_free(p);
		return -1;
	}
	struct vp_stat **order = malloc((p->nstats + 1) * sizeof *order);
	uint64_t *pcs = malloc((p->nstats + 1) * sizeof *pcs);
	struct vp_where *where = malloc((p->nstats + 1) * sizeof *where);
	if (!order || !pcs || !where) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	uint64_t total = 0, samples = 0;
	size_t n = 0;
	for (size_t i = 0; i < p->nstats; i++) {
		total += p->stats[i]->executions;
		samples += p->stats[i]->samples;
		if (o->all || p->stats[i]->samples)
			order[n++] = p->stats[i];
	}
	qsort(order, n, sizeof *order, by_executions);
	if (o->limit && n > o->limit)
		n = o->limit;
	for (size_t i = 0; i < n; i++)
		pcs[i] = order[i]->pc;
	vp_source_lookup(p, pcs, n, where);
	fprintf(out,
		"profile '%s' (%s): %zu instructions, %" PRIu64 " executions, %" PRIu64
		" samples\n",
		p->name, p->plugin, p->nstats, total, samples);
	if (p->sample > 1)
		fprintf(out,
			"sampled: 1 trace buffer in %u of each thread (its first, then one every "
			"%u); the counts are of the executions in them\n",
			p->sample, p->sample);
	for (size_t i = 0; i < n; i++) {
		fputc('\n', out);
		print_insn(&f, o, p, order[i], total, &where[i], out);
	}
	vp_where_free(where, n);
	free(where);
	free(pcs);
	free(order);
	if (f.loaded) {
		if (f.plugin.table->prof_release)
			f.plugin.table->prof_release();
		vp_plugin_unload(&f.plugin);
	}
	vp_profile_free(p);
	return 0;
}

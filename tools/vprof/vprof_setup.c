/* Starting -vprofile (driver thread) and the helper's side: the plug-in's process function
 * fed with batches of entries, its samples merged into the profile, the file written at
 * the end. Ordinary C (glibc) on both threads. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "jit_messages.h"
#include "vprof.h"
#include "vprof_db.h"
#include "vprof_internal.h"
#include "vprof_plugin.h"
#include "vprof_profile.h"

static struct {
	struct vp_plugin plugin;
	struct vp_profile *profile;
	char *output; /* absolute: the app may change directory */
	struct vprof_sample *samples;
} vs;

static struct vp_stat *stat_of(uint64_t pc)
{
	struct vp_stat *s = vp_profile_stat(vs.profile, pc);
	if (!s)
		jit_fatal("-vprofile: out of memory for the profile");
	return s;
}

/* The record of the instruction an entry came from. */
static struct vp_stat *stat_from(struct vp_binsn *bi)
{
	if (!bi->stat)
		bi->stat = stat_of(bi->pc);
	return bi->stat;
}

/* A batch of entries through the plug-in into the profile (helper thread). A sample is
 * usually of its entry's instruction, and the samples come in the entries' order: its
 * record is found through the entry (`from`), without a search. */
static void process(const struct vprof_entry *entries, struct vp_binsn *const *from, size_t n)
{
	size_t m = vs.plugin.table->process(entries, n, vs.samples);
	if (m > n * VPROF_MAX_SAMPLES_PER_ENTRY)
		jit_fatal("-vprofile: '%s' returned %zu samples for %zu entries (at most %d each)",
			  vs.plugin.name, m, n, VPROF_MAX_SAMPLES_PER_ENTRY);
	size_t j = 0;
	for (size_t k = 0; k < m; k++) {
		const struct vprof_sample *x = &vs.samples[k];
		size_t ahead = j;
		while (ahead < n && ahead < j + 8 && from[ahead]->pc != x->pc)
			ahead++;
		struct vp_stat *s;
		if (ahead < n && from[ahead]->pc == x->pc) {
			j = ahead;
			s = stat_from(from[j]);
		} else {
			s = stat_of(x->pc);
		}
		if (vp_profile_add(vs.profile, s, x))
			jit_fatal("-vprofile: out of memory for the profile");
	}
}

/* Every profiled instruction's executions, added up over the blocks holding it. */
static void count_executions(void)
{
	const struct vp_block *blk;
	for (uint32_t word = 1; (blk = vp_block_of(word)); word++) {
		for (uint32_t i = 0; i < blk->ninsns; i++) {
			const struct vp_binsn *bi = &blk->insns[i];
			if (!bi->executions)
				continue;
			struct vp_stat *s = stat_of(bi->insn->pc);
			s->executions += bi->executions;
			s->length = bi->insn->length;
			memcpy(s->bytes, bi->insn->bytes, bi->insn->length);
		}
	}
}

static void consume(const struct handoff_buffer *b, void *arg)
{
	(void)arg;
	vp_decode(b, process);
}

/* After the last buffer: the plug-in is done, the profile goes to its file. */
static void finish(void *arg)
{
	(void)arg;
	vp_decode_end(process);
	count_executions();
	if (vs.plugin.table->prof_release)
		vs.plugin.table->prof_release();
	struct vp_profile *p = vs.profile;
	if (!(p->images = calloc(vp_nimages + 1, sizeof *p->images)))
		jit_fatal("-vprofile: out of memory");
	for (size_t i = 0; i < vp_nimages; i++) {
		const struct vp_image *m = &vp_images[i];
		p->images[i] = (struct vp_image_map){m->start, m->end, m->offset, strdup(m->path)};
		if (!p->images[i].path)
			jit_fatal("-vprofile: out of memory");
		p->nimages++;
	}
	if (vp_profile_sort(p))
		jit_fatal("-vprofile: out of memory");
	uint64_t samples = 0;
	for (size_t i = 0; i < p->nstats; i++)
		samples += p->stats[i]->samples;
	char err[PATH_MAX + 128];
	if (vp_db_write(vs.output, p, err, sizeof err))
		jit_fatal("-vprofile: %s", err);
	jit_message("-vprofile: profile '%s' written to %s (%zu instructions, %lu samples)",
		    vs.plugin.name, vs.output, p->nstats, (unsigned long)samples);
	vp_plugin_unload(&vs.plugin);
}

/* The file the profile goes to, made absolute (the app may change directory); tried now,
 * so that a bad path fails before the app runs, and removed again when it is new (a run
 * that dies of a signal writes no profile, and leaves no empty one). */
static char *output_path(const struct vprof_knobs *k, char *err, size_t errlen)
{
	char base[PATH_MAX], name[PATH_MAX + 48];
	if (k->output)
		snprintf(base, sizeof base, "%s", k->output);
	else
		snprintf(base, sizeof base, "%s.vprof", vs.plugin.name);
	if (k->image)
		snprintf(name, sizeof name, "%s.%d.%lu", base, (int)getpid(),
			 (unsigned long)k->image);
	else
		snprintf(name, sizeof name, "%s", base);
	bool existed = !access(name, F_OK);
	int fd = open(name, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0) {
		snprintf(err, errlen, "-vprofile_out: cannot write '%s': %s", name,
			 strerror(errno));
		return NULL;
	}
	close(fd);
	char *path = realpath(name, NULL);
	if (!path)
		snprintf(err, errlen, "-vprofile_out: cannot resolve '%s': %s", name,
			 strerror(errno));
	if (!existed)
		unlink(name);
	return path;
}

int vprof_register(const struct vprof_knobs *k, char *err, size_t errlen)
{
	char why[512];
	if (!k->values_kept) {
		snprintf(err, errlen, "-vprofile_values must be at least 1");
		return -1;
	}
	if (vp_plugin_load(k->plugin, &vs.plugin, err, errlen))
		return -1;
	if (vp_spec_compile(vs.plugin.table->prof_init(), &vp_spec, why, sizeof why)) {
		snprintf(err, errlen, "value profiler '%s': its specification: %s", k->plugin, why);
		return -1;
	}
	if (!(vs.output = output_path(k, err, errlen)))
		return -1;
	vs.profile = vp_profile_new(vs.plugin.name, vs.plugin.path, vp_spec.contexts,
				    (uint32_t)k->values_kept);
	vs.samples = calloc(VP_BATCH * VPROF_MAX_SAMPLES_PER_ENTRY, sizeof *vs.samples);
	if (!vs.profile || !vs.samples) {
		snprintf(err, errlen, "out of memory for -vprofile");
		return -1;
	}
	static const struct handoff_ops ops = {consume, finish, NULL};
	struct handoff *h = handoff_start(&ops, err, errlen);
	return h ? vp_client_register(h, (uint32_t)k->image, err, errlen) : -1;
}

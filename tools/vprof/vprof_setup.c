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
#include "vprof_merge.h"
#include "vprof_plugin.h"
#include "vprof_profile.h"

static struct {
	struct vp_plugin plugin;
	struct vp_profile *profile;
	char *output;		      /* absolute: the app may change directory */
	struct vp_merge_batch *batch; /* being filled */
} vs;

/* A batch of entries through the plug-in, its samples to the merging thread (helper
 * thread), with the next batches while there is room. */
static void process(const struct vprof_entry *entries, const struct vp_origin *from, size_t n)
{
	struct vp_merge_batch *b = vs.batch;
	if (!b) {
		b = vs.batch = vp_merge_get();
		b->n = b->m = 0;
	}
	size_t m = vs.plugin.table->process(entries, n, b->samples + b->m);
	if (m > n * VPROF_MAX_SAMPLES_PER_ENTRY)
		jit_fatal("-vprofile: '%s' returned %zu samples for %zu entries (at most %d each)",
			  vs.plugin.name, m, n, VPROF_MAX_SAMPLES_PER_ENTRY);
	memcpy(b->from + b->n, from, n * sizeof *from);
	b->n += n;
	b->m += m;
	if (b->n + VP_BATCH > VP_MERGE_BATCH) {
		vp_merge_put(b);
		vs.batch = NULL;
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
	if (vs.batch)
		vp_merge_put(vs.batch);
	vp_merge_finish();
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
	if (!k->sample) {
		snprintf(err, errlen, "-vprofile_sample must be at least 1");
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
	if (!vs.profile) {
		snprintf(err, errlen, "out of memory for -vprofile");
		return -1;
	}
	vs.profile->sample = (uint32_t)k->sample;
	if (vp_merge_start(vs.profile, err, errlen))
		return -1;
	static const struct handoff_ops ops = {consume, finish, NULL};
	struct handoff *h = handoff_start(&ops, err, errlen);
	return h ? vp_client_register(h, (uint32_t)k->image, vs.profile->sample, err, errlen) : -1;
}

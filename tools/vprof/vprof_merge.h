/* The merging thread (a second helper thread): the samples the plug-in made from a batch of
 * entries go into the profile there, while the first helper decodes the next records and
 * calls the plug-in again. A busy profile thus uses two cores (the app's thread mostly waits
 * for the helpers); each thread's share is about half. Glibc threads, started by the
 * driver before the app. */
#ifndef TOOL_VPROF_MERGE_H
#define TOOL_VPROF_MERGE_H

#include <stddef.h>

#include "pintrace_vprofiler.h"
#include "vprof_internal.h"
#include "vprof_profile.h"

/* Entries a batch on its way holds: several of the plug-in's batches (handing one over
 * may wake the other thread; a handful per million entries cost little). */
#define VP_MERGE_BATCH (16 * VP_BATCH)

/* One batch on its way: where its entries came from, and the samples the plug-in made. */
struct vp_merge_batch {
	size_t n, m;
	struct vp_origin from[VP_MERGE_BATCH];
	struct vprof_sample samples[VP_MERGE_BATCH * VPROF_MAX_SAMPLES_PER_ENTRY];
};

/* Driver thread: starts the merging thread into p. 0, or -1 with a one-line reason. */
int vp_merge_start(struct vp_profile *p, char *err, size_t errlen);

/* First helper: a free batch to fill (waits while every one is full), then hands it over. */
struct vp_merge_batch *vp_merge_get(void);
void vp_merge_put(struct vp_merge_batch *b);

/* First helper: returns once every batch handed over is merged (each entry counted as an
 * execution of its instruction) and the thread has ended. */
void vp_merge_finish(void);

#endif

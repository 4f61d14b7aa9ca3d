/* A value profile: for each instruction, how often it was profiled and how often each
 * distinct (context, value) sample came, as gathered on the helper thread
 * (vp_profile_add) and as the profile file holds it (vprof_db.h). Ordinary C (glibc). */
#ifndef TOOL_VPROF_PROFILE_H
#define TOOL_VPROF_PROFILE_H

#include <stddef.h>
#include <stdint.h>

#include "pintrace_vprofiler.h"

struct vp_count {
	uint64_t context[2], value;
	uint64_t count;
};

/* A slot of the table of an instruction's samples while gathering (count 0: free). */
struct vp_slot {
	uint64_t value, count;
};

struct vp_stat {
	/* What every sample updates, in one cache line. */
	uint64_t samples;  /* samples merged */
	uint64_t min, max; /* of every sample's value (unsigned) */
	uint32_t nvalues;  /* distinct samples kept */
	/* While gathering: open addressing over `capacity` slots, at most half full, their
	 * contexts in a parallel array when the profile has contexts (without, a slot is
	 * 16 bytes: the tables are what a busy profile's time goes to). */
	uint32_t capacity;
	struct vp_slot *slots;
	uint64_t (*slot_contexts)[2];
	uint64_t pc;
	uint8_t length; /* 0: no entry came for this pc (a plug-in's own pc) */
	uint8_t bytes[15];
	uint64_t executions; /* entries the plug-in processed */
	uint64_t other;	     /* samples of distinct values beyond those kept (once sorted) */
	/* Sorted (vp_profile_sort) or read back: the nvalues distinct samples. */
	struct vp_count *values;
};

struct vp_image_map {
	uint64_t start, end, offset;
	char *path;
};

struct vp_profile {
	char *name;   /* the profiler's name */
	char *plugin; /* the plug-in's absolute path */
	unsigned contexts;
	uint32_t values_kept; /* distinct samples kept per instruction */
	uint32_t sample;      /* one trace buffer in this many was profiled (-vprofile_sample) */
	struct vp_image_map *images;
	size_t nimages;
	struct vp_stat **stats; /* open addressing by pc while gathering; sorted when read */
	size_t nstats, capacity;
};

/* An empty profile (NULL when out of memory). */
struct vp_profile *vp_profile_new(const char *name, const char *plugin, unsigned contexts,
				  uint32_t values_kept);

/* The record of pc, made when new (NULL when out of memory). */
struct vp_stat *vp_profile_stat(struct vp_profile *p, uint64_t pc);

/* One sample more at s (its contexts count only when the profile has contexts). Returns
 * -1 when out of memory. */
int vp_profile_add(const struct vp_profile *p, struct vp_stat *s, const struct vprof_sample *x);

/* Starts loading what vp_profile_add(p, s, x) will look at (the slot x hashes to), so that
 * the misses of the next few samples overlap. */
void vp_profile_prefetch(const struct vp_profile *p, const struct vp_stat *s,
			 const struct vprof_sample *x);

/* The records in pc order, each one's samples (`values`) by count (most first), then value
 * and context: the order the file and the lister use. -1 when out of memory. */
int vp_profile_sort(struct vp_profile *p);

void vp_profile_free(struct vp_profile *p);

#endif

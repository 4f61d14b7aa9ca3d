/* The simpoint program's pieces: SimPoint 3's method over basic-block vectors (.bb files):
 * each interval's vector normalised to frequencies, randomly projected to a few
 * dimensions, clustered by k-means for every k up to maxK, the k chosen by the Bayesian
 * information criterion, and one representative interval per cluster (the one nearest
 * its centre) with the cluster's share of the instructions as its weight. */
#ifndef TOOL_SIMPOINT_H
#define TOOL_SIMPOINT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* Sparse vectors, one per interval, as read from a .bb file. */
struct fv_set {
	size_t n;	      /* intervals */
	size_t *start;	      /* entries of interval i: [start[i], start[i + 1]) */
	uint32_t *block;      /* block ids */
	double *value;	      /* normalised: an interval's values sum to 1 */
	double *instructions; /* each interval's total before normalising */
};

/* Reads a .bb file (lines "T:id:count :id:count ..."; other lines are ignored). 0, or -1
 * with a one-line reason in err. */
int fv_read(FILE *f, struct fv_set *s, char *err, size_t errlen);

/* Projected points: n rows of dim values. */
double *fv_project(const struct fv_set *s, size_t dim, uint64_t seed);

struct clustering {
	size_t k;
	size_t *label;	   /* per point */
	double *centre;	   /* k rows of dim */
	double distortion; /* sum of squared distances to the centres */
};

/* k-means with `seeds` k-means++ starts (the least distortion wins), at most `iters`
 * iterations each. */
void kmeans(const double *points, size_t n, size_t dim, size_t k, size_t seeds, size_t iters,
	    uint64_t seed, struct clustering *out);

/* The BIC of a clustering (larger is better). */
double bic(const double *points, size_t n, size_t dim, const struct clustering *c);

/* A deterministic generator (splitmix64), so that a run is reproducible from its seeds. */
uint64_t sp_random(uint64_t *state);
double sp_uniform(uint64_t *state); /* [0, 1) */

#endif

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "simpoint.h"

uint64_t sp_random(uint64_t *state)
{
	uint64_t z = (*state += 0x9e3779b97f4a7c15ull);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

double sp_uniform(uint64_t *state)
{
	return (double)(sp_random(state) >> 11) / 9007199254740992.0;
}

/* Each block id gets a row of the projection, uniform in [-1, 1), made from the id and
 * the seed alone: the same block projects the same way whatever else the file holds. */
double *fv_project(const struct fv_set *s, size_t dim, uint64_t seed)
{
	double *out = calloc(s->n * dim, sizeof *out);
	if (!out)
		return NULL;
	for (size_t i = 0; i < s->n; i++)
		for (size_t e = s->start[i]; e < s->start[i + 1]; e++) {
			uint64_t state = seed ^ ((uint64_t)s->block[e] * 0xd1342543de82ef95ull);
			for (size_t d = 0; d < dim; d++)
				out[i * dim + d] += s->value[e] * (2 * sp_uniform(&state) - 1);
		}
	return out;
}

static double dist2(const double *a, const double *b, size_t dim)
{
	double s = 0;
	for (size_t d = 0; d < dim; d++)
		s += (a[d] - b[d]) * (a[d] - b[d]);
	return s;
}

/* k-means++: the first centre at random, each next one with probability proportional to
 * the squared distance to the nearest chosen centre. */
static void seed_centres(const double *p, size_t n, size_t dim, size_t k, double *centre,
			 double *nearest, uint64_t *state)
{
	memcpy(centre, p + (sp_random(state) % n) * dim, dim * sizeof *centre);
	for (size_t i = 0; i < n; i++)
		nearest[i] = dist2(p + i * dim, centre, dim);
	for (size_t c = 1; c < k; c++) {
		double total = 0;
		for (size_t i = 0; i < n; i++)
			total += nearest[i];
		size_t pick = 0;
		if (total > 0) {
			double r = sp_uniform(state) * total;
			while (pick + 1 < n && (r -= nearest[pick]) > 0)
				pick++;
		} else {
			pick = sp_random(state) % n;
		}
		memcpy(centre + c * dim, p + pick * dim, dim * sizeof *centre);
		for (size_t i = 0; i < n; i++) {
			double d = dist2(p + i * dim, centre + c * dim, dim);
			if (d < nearest[i])
				nearest[i] = d;
		}
	}
}

/* Lloyd's iterations; returns the distortion. */
static double lloyd(const double *p, size_t n, size_t dim, size_t k, size_t iters, double *centre,
		    size_t *label, size_t *size)
{
	double distortion = 0;
	for (size_t it = 0; it < iters; it++) {
		bool moved = it == 0;
		distortion = 0;
		for (size_t i = 0; i < n; i++) {
			size_t best = 0;
			double bd = dist2(p + i * dim, centre, dim);
			for (size_t c = 1; c < k; c++) {
				double d = dist2(p + i * dim, centre + c * dim, dim);
				if (d < bd) {
					bd = d;
					best = c;
				}
			}
			moved |= label[i] != best;
			label[i] = best;
			distortion += bd;
		}
		if (!moved)
			break;
		memset(size, 0, k * sizeof *size);
		for (size_t i = 0; i < n; i++)
			size[label[i]]++;
		for (size_t c = 0; c < k; c++)
			if (size[c])
				memset(centre + c * dim, 0, dim * sizeof *centre);
		for (size_t i = 0; i < n; i++)
			for (size_t d = 0; d < dim; d++)
				centre[label[i] * dim + d] +=
				    p[i * dim + d] / (double)size[label[i]];
	}
	return distortion;
}

void kmeans(const double *points, size_t n, size_t dim, size_t k, size_t seeds, size_t iters,
	    uint64_t seed, struct clustering *out)
{
	double *centre = malloc(k * dim * sizeof *centre), *nearest = malloc(n * sizeof *nearest);
	size_t *label = malloc(n * sizeof *label), *size = malloc(k * sizeof *size);
	out->k = k;
	out->label = malloc(n * sizeof *out->label);
	out->centre = malloc(k * dim * sizeof *out->centre);
	out->distortion = INFINITY;
	if (!centre || !nearest || !label || !size || !out->label || !out->centre) {
		fprintf(stderr, "simpoint: error: out of memory\n");
		exit(1);
	}
	uint64_t state = seed;
	for (size_t s = 0; s < seeds; s++) {
		seed_centres(points, n, dim, k, centre, nearest, &state);
		for (size_t i = 0; i < n; i++)
			label[i] = k; /* none yet: the first pass assigns every point */
		double dist = lloyd(points, n, dim, k, iters, centre, label, size);
		if (dist < out->distortion) {
			out->distortion = dist;
			memcpy(out->label, label, n * sizeof *label);
			memcpy(out->centre, centre, k * dim * sizeof *centre);
		}
	}
	free(centre);
	free(nearest);
	free(label);
	free(size);
}

/* Pelleg and Moore's BIC for spherical Gaussian clusters sharing one variance:
 * the clustering's log-likelihood less (parameters / 2) ln n, with k - 1 mixing
 * weights, k * dim centre coordinates and one variance as parameters. */
double bic(const double *points, size_t n, size_t dim, const struct clustering *c)
{
	(void)points;
	double r = (double)n, m = (double)dim, k = (double)c->k;
	double var = n > c->k ? c->distortion / (m * (r - k)) : 0;
	if (var < 1e-12)
		var = 1e-12; /* points on their centres: a very good, finite score */
	size_t *size = calloc(c->k, sizeof *size);
	if (!size) {
		fprintf(stderr, "simpoint: error: out of memory\n");
		exit(1);
	}
	for (size_t i = 0; i < n; i++)
		size[c->label[i]]++;
	double l = -r * m / 2 * log(2 * M_PI * var) - m * (r - k) / 2;
	for (size_t j = 0; j < c->k; j++)
		if (size[j])
			l += (double)size[j] * log((double)size[j] / r);
	free(size);
	double params = (k - 1) + k * m + 1;
	return l - params / 2 * log(r);
}

/* simpoint: simulation points from basic-block vectors (SimPoint 3's method, simpoint.h).
 *
 *   simpoint -loadFVFile FILE.bb -saveSimpoints FILE -saveSimpointWeights FILE
 *            [-maxK K] [-dim D] [-numInitSeeds N] [-iters N] [-bicThreshold F]
 *            [-seedproj S] [-seedkmeans S]
 *
 * Writes, as SimPoint does, one line per chosen point: "<interval> <cluster>" (intervals
 * from 0 in the file's order) and "<weight> <cluster>", the cluster's share of the
 * instructions. Exit 0, or 1 with a one-line error. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "simpoint.h"

struct options {
	const char *in, *points, *weights;
	unsigned long maxk, dim, seeds, iters;
	double threshold;
	unsigned long seedproj, seedkmeans;
};

static int usage(const char *why)
{
	fprintf(stderr,
		"simpoint: error: %s\nusage: simpoint -loadFVFile FILE.bb -saveSimpoints FILE "
		"-saveSimpointWeights FILE [-maxK K] [-dim D] [-numInitSeeds N] [-iters N] "
		"[-bicThreshold F] [-seedproj S] [-seedkmeans S]\n",
		why);
	return 1;
}

static bool number(const char *s, unsigned long lo, unsigned long hi, unsigned long *out)
{
	char *end;
	errno = 0;
	unsigned long v = strtoul(s, &end, 10);
	if (errno || !*s || *end || v < lo || v > hi)
		return false;
	*out = v;
	return true;
}

static int parse(int argc, char **argv, struct options *o)
{
	*o = (struct options){.maxk = 15,
			      .dim = 15,
			      .seeds = 5,
			      .iters = 100,
			      .threshold = 0.9,
			      .seedproj = 2042,
			      .seedkmeans = 493};
	for (int i = 1; i < argc; i += 2) {
		const char *k = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
		char why[256];
		snprintf(why, sizeof why, "bad value for %s", k);
		if (!v)
			return usage("an option without its value");
		if (!strcmp(k, "-loadFVFile"))
			o->in = v;
		else if (!strcmp(k, "-saveSimpoints"))
			o->points = v;
		else if (!strcmp(k, "-saveSimpointWeights"))
			o->weights = v;
		else if (!strcmp(k, "-maxK")	       ? !number(v, 1, 1000, &o->maxk)
			 : !strcmp(k, "-dim")	       ? !number(v, 1, 1000, &o->dim)
			 : !strcmp(k, "-numInitSeeds") ? !number(v, 1, 1000, &o->seeds)
			 : !strcmp(k, "-iters")	       ? !number(v, 1, 100000, &o->iters)
			 : !strcmp(k, "-seedproj")     ? !number(v, 0, ~0ul, &o->seedproj)
			 : !strcmp(k, "-seedkmeans")   ? !number(v, 0, ~0ul, &o->seedkmeans)
			 : !strcmp(k, "-bicThreshold")
			     ? (o->threshold = strtod(v, NULL),
				!(o->threshold >= 0 && o->threshold <= 1))
			     : (snprintf(why, sizeof why, "unknown option '%s'", k), 1))
			return usage(why);
	}
	if (!o->in || !o->points || !o->weights)
		return usage("-loadFVFile, -saveSimpoints and -saveSimpointWeights are needed");
	return 0;
}

/* The smallest k whose score reaches threshold of the way from the worst to the best. */
static size_t choose(const double *score, size_t maxk, double threshold)
{
	double lo = INFINITY, hi = -INFINITY;
	for (size_t k = 1; k <= maxk; k++) {
		lo = fmin(lo, score[k]);
		hi = fmax(hi, score[k]);
	}
	for (size_t k = 1; k <= maxk; k++)
		if (score[k] >= lo + threshold * (hi - lo))
			return k;
	return maxk;
}

static int write_points(const struct options *o, const struct fv_set *s, const double *p,
			const struct clustering *c)
{
	FILE *pf = fopen(o->points, "w"), *wf = fopen(o->weights, "w");
	if (!pf || !wf) {
		fprintf(stderr, "simpoint: error: cannot write '%s': %s\n",
			!pf ? o->points : o->weights, strerror(errno));
		return 1;
	}
	double total = 0;
	for (size_t i = 0; i < s->n; i++)
		total += s->instructions[i];
	size_t id = 0; /* clusters numbered from 0, empty ones left out */
	for (size_t j = 0; j < c->k; j++) {
		size_t rep = s->n;
		double best = INFINITY, share = 0;
		for (size_t i = 0; i < s->n; i++) {
			if (c->label[i] != j)
				continue;
			share += s->instructions[i];
			double d = 0;
			for (size_t x = 0; x < o->dim; x++)
				d += pow(p[i * o->dim + x] - c->centre[j * o->dim + x], 2);
			if (d < best) {
				best = d;
				rep = i;
			}
		}
		if (rep == s->n)
			continue;
		fprintf(pf, "%zu %zu\n", rep, id);
		fprintf(wf, "%.9f %zu\n", total > 0 ? share / total : 0, id);
		id++;
	}
	bool ok = !ferror(pf) && !ferror(wf);
	ok &= !fclose(pf);
	ok &= !fclose(wf);
	if (!ok) {
		fprintf(stderr, "simpoint: error: writing the simulation points failed\n");
		return 1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct options o;
	if (parse(argc, argv, &o))
		return 1;
	FILE *f = fopen(o.in, "r");
	if (!f) {
		fprintf(stderr, "simpoint: error: cannot read '%s': %s\n", o.in, strerror(errno));
		return 1;
	}
	struct fv_set s;
	char err[256];
	int rc = fv_read(f, &s, err, sizeof err);
	fclose(f);
	if (rc) {
		fprintf(stderr, "simpoint: error: %s: %s\n", o.in, err);
		return 1;
	}
	double *p = fv_project(&s, o.dim, o.seedproj);
	size_t maxk = o.maxk < s.n ? o.maxk : s.n;
	struct clustering *c = calloc(maxk + 1, sizeof *c);
	double *score = calloc(maxk + 1, sizeof *score);
	if (!p || !c || !score) {
		fprintf(stderr, "simpoint: error: out of memory\n");
		return 1;
	}
	for (size_t k = 1; k <= maxk; k++) {
		kmeans(p, s.n, o.dim, k, o.seeds, o.iters, o.seedkmeans + k, &c[k]);
		score[k] = bic(p, s.n, o.dim, &c[k]);
	}
	size_t k = choose(score, maxk, o.threshold);
	fprintf(stderr, "simpoint: %zu intervals, k = %zu chosen of 1..%zu\n", s.n, k, maxk);
	return write_points(&o, &s, p, &c[k]);
}

/* Error messages, and the "did you mean" that makes a typo cost one glance. */
#include "control_internal.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* Bytes in use after appending with an snprintf-style result `wrote` at `used`. */
static size_t advance(size_t used, int wrote, size_t size)
{
	size_t end = used + (wrote > 0 ? (size_t)wrote : 0);
	return end < size ? end : size - 1;
}

int ctl_fail(struct control_error *err, const char *knob, size_t column, const char *fmt, ...)
{
	if (!err)
		return -1;
	char *m = err->message;
	size_t size = sizeof(err->message);
	/* A knob name comes from argv and may be anything: cut it like a token. */
	size_t n = advance(0, snprintf(m, size, "%.64s: ", knob), size);
	va_list ap;
	va_start(ap, fmt);
	n = advance(n, vsnprintf(m + n, size - n, fmt, ap), size);
	va_end(ap);
	if (column)
		snprintf(m + n, size - n, " at column %zu", column);
	err->column = column;
	return -1;
}

int ctl_out_of_memory(struct control_error *err, const char *knob)
{
	return ctl_fail(err, knob, 0, "out of memory");
}

/* Longer tokens are not typos of any keyword we know. */
#define SUGGEST_MAX 64

static char fold(char c, bool fold_case)
{
	return fold_case ? (char)toupper((unsigned char)c) : c;
}

/* Edit distance counting an adjacent transposition as one edit ("strat" -> "start"). */
static size_t distance(const char *a, size_t la, const char *b, size_t lb, bool fold_case)
{
	size_t rows[3][SUGGEST_MAX + 1];
	size_t *prev2 = rows[0], *prev = rows[1], *cur = rows[2];
	for (size_t j = 0; j <= lb; j++)
		prev[j] = j;
	for (size_t i = 1; i <= la; i++) {
		cur[0] = i;
		for (size_t j = 1; j <= lb; j++) {
			char ca = fold(a[i - 1], fold_case), cb = fold(b[j - 1], fold_case);
			size_t best = prev[j - 1] + (ca != cb);
			if (prev[j] + 1 < best)
				best = prev[j] + 1;
			if (cur[j - 1] + 1 < best)
				best = cur[j - 1] + 1;
			if (i > 1 && j > 1 && ca == fold(b[j - 2], fold_case) &&
			    fold(a[i - 2], fold_case) == cb && prev2[j - 2] + 1 < best)
				best = prev2[j - 2] + 1;
			cur[j] = best;
		}
		size_t *t = prev2;
		prev2 = prev;
		prev = cur;
		cur = t;
	}
	return prev[lb];
}

const char *ctl_suggest(const char *word, size_t len, const char *const *known, bool fold_case)
{
	if (len == 0 || len > SUGGEST_MAX)
		return NULL;
	/* One edit in a short word, two in a medium one, three in a long one: beyond that the
	 * "suggestion" would be a guess. */
	size_t limit = len <= 3 ? 1 : len <= 7 ? 2 : 3;
	/* Ties go to the candidate of the word's own length: a mistyped letter is likelier than
	 * a missing one ("AVX3" is AVX2, not AVX). */
	const char *best = NULL;
	size_t best_d = limit + 1, best_gap = 0;
	for (; *known; known++) {
		size_t lk = strlen(*known);
		if (lk > SUGGEST_MAX)
			continue;
		size_t d = distance(word, len, *known, lk, fold_case);
		size_t gap = lk > len ? lk - len : len - lk;
		if (d > 0 && (d < best_d || (d == best_d && gap < best_gap))) {
			best = *known;
			best_d = d;
			best_gap = gap;
		}
	}
	return best;
}

int ctl_fail_unknown(struct control_error *err, const char *knob, const char *what,
		     const struct ctl_token *t, const char *const *known, bool fold_case)
{
	const char *hint = ctl_suggest(t->p, t->len, known, fold_case);
	ctl_fail(err, knob, t->column, "unknown %s '%.*s'", what, CTL_TOK(t));
	if (hint && err) {
		size_t n = strlen(err->message);
		snprintf(err->message + n, sizeof(err->message) - n, " (did you mean '%s'?)", hint);
	}
	return -1;
}

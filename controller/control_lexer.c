/* Splits a knob's value into ',' elements and ':' fields, and reads numbers, keeping the
 * column of everything so messages can point at it. */
#include "control_internal.h"

#include <stdlib.h>
#include <string.h>

void ctl_lexer_init(struct ctl_lexer *lx, const char *knob, const char *text)
{
	lx->knob = knob;
	lx->text = text;
	lx->len = strlen(text);
	lx->pos = 0;
}

/* Spaces and control bytes are never part of a name: a shell quoting slip is likelier than
 * a symbol with a tab in it. Bytes >= 0x80 pass (UTF-8 symbols and paths). */
static bool is_field_byte(unsigned char c)
{
	return c > 0x20 && c != 0x7f;
}

int ctl_next_element(struct ctl_lexer *lx, struct ctl_element *el, struct control_error *err)
{
	if (lx->pos > lx->len)
		return 0;
	size_t start = lx->pos;
	el->nfields = 0;
	el->column = start + 1;
	size_t field_start = start;
	for (size_t i = start;; i++) {
		char c = i < lx->len ? lx->text[i] : ',';
		if (c != ',' && c != ':') {
			if (!is_field_byte((unsigned char)c))
				return ctl_fail(err, lx->knob, i + 1, "unexpected character 0x%02x",
						(unsigned char)c);
			continue;
		}
		/* Empty fields are the parser's to judge ("missing value for ..."); an empty
		 * element is never meaningful. */
		if (i == start && c == ',') {
			if (i == lx->len && start > 0)
				return ctl_fail(err, lx->knob, start, "trailing comma");
			return ctl_fail(err, lx->knob, i + 1, "empty element");
		}
		if (el->nfields == CTL_FIELDS_MAX)
			return ctl_fail(err, lx->knob, field_start + 1, "too many fields");
		struct ctl_token *t = &el->field[el->nfields++];
		t->p = lx->text + field_start;
		t->len = i - field_start;
		t->column = field_start + 1;
		field_start = i + 1;
		if (c == ',') {
			el->end_column = i + 1;
			lx->pos = i + 1;
			return 1;
		}
	}
}

bool ctl_tok_is(const struct ctl_token *t, const char *word)
{
	return strlen(word) == t->len && memcmp(t->p, word, t->len) == 0;
}

char *ctl_tok_dup(const struct ctl_token *t)
{
	return strndup(t->p, t->len);
}

int ctl_hex_digit(char c)
{
	static const char digits[] = "0123456789abcdef";
	char lower = c >= 'A' && c <= 'F' ? (char)(c - 'A' + 'a') : c;
	const char *at = lower ? memchr(digits, lower, 16) : NULL;
	return at ? (int)(at - digits) : -1;
}

static bool has_hex_prefix(const struct ctl_token *t)
{
	return t->len >= 2 && t->p[0] == '0' && (t->p[1] == 'x' || t->p[1] == 'X');
}

/* Accumulates digits of `base` from t->p[from]; 0 ok, 1 bad digit at *bad, 2 overflow. */
static int accumulate(const struct ctl_token *t, size_t from, unsigned base, uint64_t max,
		      uint64_t *out, size_t *bad)
{
	uint64_t v = 0;
	bool overflow = false;
	for (size_t i = from; i < t->len; i++) {
		int d = ctl_hex_digit(t->p[i]);
		if (d < 0 || (unsigned)d >= base) {
			*bad = i;
			return 1;
		}
		if (v > (max - (uint64_t)d) / base)
			overflow = true;
		else
			v = v * base + (uint64_t)d;
	}
	*out = v;
	return overflow ? 2 : 0;
}

/* "0x" alone: a number was meant, its digits are missing. */
static int no_hex_digits(const char *knob, const struct ctl_token *t, struct control_error *err)
{
	return ctl_fail(err, knob, t->column, "missing digits after '%.*s'", CTL_TOK(t));
}

int ctl_parse_uint(const char *knob, const struct ctl_token *t, uint64_t max, uint64_t *out,
		   struct control_error *err)
{
	bool hex = has_hex_prefix(t);
	if (hex && t->len == 2)
		return no_hex_digits(knob, t, err);
	size_t bad;
	switch (accumulate(t, hex ? 2 : 0, hex ? 16 : 10, max, out, &bad)) {
	case 0:
		return 0;
	case 1:
		return ctl_fail(err, knob, t->column, "bad integer '%.*s'", CTL_TOK(t));
	default:
		return ctl_fail(err, knob, t->column, "integer '%.*s' out of range (at most %llu)",
				CTL_TOK(t), (unsigned long long)max);
	}
}

int ctl_parse_hex(const char *knob, const char *what, const struct ctl_token *t, uint64_t max,
		  uint64_t *out, struct control_error *err)
{
	bool prefix = has_hex_prefix(t);
	if (prefix && t->len == 2)
		return no_hex_digits(knob, t, err);
	size_t bad;
	switch (accumulate(t, prefix ? 2 : 0, 16, max, out, &bad)) {
	case 0:
		return 0;
	case 1:
		return ctl_fail(err, knob, t->column + bad, "bad hex digit '%c'", t->p[bad]);
	default:
		return ctl_fail(err, knob, t->column, "%s '%.*s' is wider than %d bits", what,
				CTL_TOK(t), 64 - __builtin_clzll(max));
	}
}

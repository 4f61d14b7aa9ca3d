/* The value fields of each alarm type: what follows `<event>:<type>:`. */
#include "control_internal.h"

#include "xed_names.h"

#include <string.h>

static bool starts_with_digit(const struct ctl_token *t)
{
	return t->len > 0 && t->p[0] >= '0' && t->p[0] <= '9';
}

/* A pc or an image offset: a number no higher than the highest user address. */
static int parse_user_address(const char *knob, const struct ctl_token *v, uint64_t *out,
			      struct control_error *err)
{
	if (ctl_parse_uint(knob, v, UINT64_MAX, out, err))
		return -1;
	if (*out > CONTROL_ADDRESS_MAX)
		return ctl_fail(err, knob, v->column,
				"address '%.*s' is beyond the user address space (at most 0x%llx)",
				CTL_TOK(v), (unsigned long long)CONTROL_ADDRESS_MAX);
	return 0;
}

/* 0x... is a pc; else image+offset at the last '+' (libstdc++.so.6 keeps its own); else a
 * value starting with a digit is a decimal pc (no symbol starts with one), so that `0x`
 * alone or a number too long for 64 bits is an error, not a symbol never found. */
static int parse_address(const char *knob, const struct ctl_token *v, struct control_alarm *a,
			 struct control_error *err)
{
	bool hex = v->len >= 2 && v->p[0] == '0' && (v->p[1] == 'x' || v->p[1] == 'X');
	const char *plus = hex ? NULL : memrchr(v->p, '+', v->len);
	if (!plus && starts_with_digit(v)) {
		a->u.address.kind = CONTROL_ADDRESS_PC;
		return parse_user_address(knob, v, &a->u.address.pc, err);
	}
	if (!plus) {
		a->u.address.kind = CONTROL_ADDRESS_SYMBOL;
		a->u.address.symbol = ctl_tok_dup(v);
		return a->u.address.symbol ? 0 : ctl_out_of_memory(err, knob);
	}
	struct ctl_token image = {v->p, (size_t)(plus - v->p), v->column};
	struct ctl_token offset = {plus + 1, v->len - image.len - 1, v->column + image.len + 1};
	if (image.len == 0)
		return ctl_fail(err, knob, v->column, "missing image name before '+'");
	if (offset.len == 0)
		return ctl_fail(err, knob, offset.column, "missing offset after '+'");
	a->u.address.kind = CONTROL_ADDRESS_IMAGE_OFFSET;
	if (parse_user_address(knob, &offset, &a->u.address.offset, err))
		return -1;
	a->u.address.image = ctl_tok_dup(&image);
	return a->u.address.image ? 0 : ctl_out_of_memory(err, knob);
}

static int parse_itext(const char *knob, const struct ctl_token *v, struct control_alarm *a,
		       struct control_error *err)
{
	for (size_t i = 0; i < v->len; i++)
		if (ctl_hex_digit(v->p[i]) < 0)
			return ctl_fail(err, knob, v->column + i, "bad hex digit '%c'", v->p[i]);
	if (v->len % 2)
		return ctl_fail(err, knob, v->column, "itext needs an even number of hex digits");
	if (v->len / 2 > CONTROL_ITEXT_MAX)
		return ctl_fail(err, knob, v->column, "itext longer than %d bytes",
				CONTROL_ITEXT_MAX);
	a->u.itext.len = (uint8_t)(v->len / 2);
	for (size_t i = 0; i < a->u.itext.len; i++)
		a->u.itext.bytes[i] =
		    (uint8_t)(ctl_hex_digit(v->p[2 * i]) << 4 | ctl_hex_digit(v->p[2 * i + 1]));
	return 0;
}

static int parse_isa(const char *knob, const struct ctl_token *v, struct control_alarm *a,
		     struct control_error *err)
{
	bool ext = a->type == CONTROL_ALARM_ISA_EXTENSION;
	a->u.isa = ext ? xed_extension_find(v->p, v->len) : xed_category_find(v->p, v->len);
	if (a->u.isa)
		return 0;
	return ctl_fail_unknown(err, knob, ctl_type_words[a->type], v,
				ext ? xed_extension_names : xed_category_names, true);
}

static int parse_positive(const char *knob, const char *what, const struct ctl_token *v,
			  uint64_t *out, struct control_error *err)
{
	if (ctl_parse_uint(knob, v, CONTROL_COUNT_MAX, out, err))
		return -1;
	if (*out == 0)
		return ctl_fail(err, knob, v->column, "%s must be at least 1", what);
	return 0;
}

static int parse_uniform(const char *knob, const struct ctl_token *v, struct control_alarm *a,
			 struct control_error *err)
{
	if (parse_positive(knob, "uniform period", &v[0], &a->u.uniform.period, err) ||
	    parse_positive(knob, "uniform length", &v[1], &a->u.uniform.length, err) ||
	    parse_positive(knob, "uniform count", &v[2], &a->u.uniform.count, err))
		return -1;
	if (a->u.uniform.length > a->u.uniform.period)
		return ctl_fail(err, knob, v[1].column, "uniform length %llu exceeds period %llu",
				(unsigned long long)a->u.uniform.length,
				(unsigned long long)a->u.uniform.period);
	return 0;
}

static int parse_string(const char *knob, const struct ctl_token *v, char **out,
			struct control_error *err)
{
	*out = ctl_tok_dup(v);
	return *out ? 0 : ctl_out_of_memory(err, knob);
}

/* Collects the value tokens: the required ones by position (a symbol may look like
 * anything), then optional ones only if numeric, since a letter starts a modifier. */
static int collect(const char *knob, const struct ctl_element *el, size_t *next,
		   enum control_alarm_type type, struct ctl_token *v, size_t *nv,
		   struct control_error *err)
{
	struct ctl_arity ar = ctl_type_arity[type];
	const char *name = ctl_type_words[type];
	size_t i = *next, n = 0;
	if (type == CONTROL_ALARM_UNIFORM) {
		while (i + n < el->nfields && starts_with_digit(&el->field[i + n]))
			n++;
		if (n != ar.min)
			return ctl_fail(err, knob, el->column,
					"uniform takes 3 values (period:length:count), not %zu", n);
	}
	for (n = 0; n < ar.min; n++, i++) {
		if (i >= el->nfields)
			return ctl_fail(err, knob, el->end_column, "missing value for '%s'", name);
		if (el->field[i].len == 0)
			return ctl_fail(err, knob, el->field[i].column, "missing value for '%s'",
					name);
		v[n] = el->field[i];
	}
	for (; n < ar.max && i < el->nfields && starts_with_digit(&el->field[i]); n++, i++)
		v[n] = el->field[i];
	*next = i;
	*nv = n;
	return 0;
}

int ctl_parse_values(const char *knob, const struct ctl_element *el, size_t *next,
		     struct control_alarm *a, struct control_error *err)
{
	struct ctl_token v[3];
	size_t nv = 0;
	if (collect(knob, el, next, a->type, v, &nv, err))
		return -1;
	uint64_t x;
	switch (a->type) {
	case CONTROL_ALARM_ICOUNT:
		return ctl_parse_uint(knob, &v[0], CONTROL_COUNT_MAX, &a->u.icount, err);
	case CONTROL_ALARM_ADDRESS:
		return parse_address(knob, &v[0], a, err);
	case CONTROL_ALARM_SSC:
		if (ctl_parse_hex(knob, "ssc value", &v[0], UINT32_MAX, &x, err))
			return -1;
		a->u.ssc = (uint32_t)x;
		return 0;
	case CONTROL_ALARM_ITEXT:
		return parse_itext(knob, &v[0], a, err);
	case CONTROL_ALARM_ISA_EXTENSION:
	case CONTROL_ALARM_ISA_CATEGORY:
		return parse_isa(knob, &v[0], a, err);
	case CONTROL_ALARM_CPUID:
		if (ctl_parse_uint(knob, &v[0], UINT32_MAX, &x, err))
			return -1;
		a->u.cpuid.leaf = (uint32_t)x;
		a->u.cpuid.has_subleaf = nv > 1;
		if (nv > 1 && ctl_parse_uint(knob, &v[1], UINT32_MAX, &x, err))
			return -1;
		a->u.cpuid.subleaf = nv > 1 ? (uint32_t)x : 0;
		return 0;
	case CONTROL_ALARM_MAGIC:
		a->u.magic.has_b = nv > 1;
		if (ctl_parse_uint(knob, &v[0], UINT64_MAX, &a->u.magic.a, err))
			return -1;
		return nv > 1 ? ctl_parse_uint(knob, &v[1], UINT64_MAX, &a->u.magic.b, err) : 0;
	case CONTROL_ALARM_PCONTROL:
		return parse_string(knob, &v[0], &a->u.pcontrol, err);
	case CONTROL_ALARM_ENTER_FUNC:
	case CONTROL_ALARM_EXIT_FUNC:
		return parse_string(knob, &v[0], &a->u.func, err);
	case CONTROL_ALARM_TIMEOUT:
		return ctl_parse_uint(knob, &v[0], CONTROL_TIMEOUT_MAX, &a->u.timeout_seconds, err);
	case CONTROL_ALARM_UNIFORM:
		return parse_uniform(knob, v, a, err);
	case CONTROL_ALARM_INT3:
	case CONTROL_ALARM_INTERACTIVE:
		return 0;
	}
	return 0;
}

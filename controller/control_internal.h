/* Shared by the parser's files; not part of the contract (control_spec.h is). */
#ifndef CONTROL_INTERNAL_H
#define CONTROL_INTERNAL_H

#include "control_spec.h"

/* A field of the knob's value: a run between ',' and ':' separators. Points into the value,
 * which lives only while control_spec_add_chain runs; anything kept is copied. */
struct ctl_token {
	const char *p;
	size_t len;
	size_t column; /* from 1 */
};

/* One ',' separated element, split at ':'. The longest legal one is an alarm with two
 * values and all four modifiers (8 fields); a little slack lets the parser name the field
 * that is wrong instead of saying "too many". */
#define CTL_FIELDS_MAX 12
struct ctl_element {
	struct ctl_token field[CTL_FIELDS_MAX];
	size_t nfields;
	size_t column;	   /* first byte of the element */
	size_t end_column; /* one past its last byte, for "missing ..." messages */
};

struct ctl_lexer {
	const char *knob;
	const char *text;
	size_t len, pos;
};

/* control_lexer.c */
void ctl_lexer_init(struct ctl_lexer *lx, const char *knob, const char *text);
/* 1 with *el filled, 0 at the end of the value, -1 with *err set. */
int ctl_next_element(struct ctl_lexer *lx, struct ctl_element *el, struct control_error *err);
bool ctl_tok_is(const struct ctl_token *t, const char *word);
char *ctl_tok_dup(const struct ctl_token *t);
/* Decimal or 0x-hex, at most max. */
int ctl_parse_uint(const char *knob, const struct ctl_token *t, uint64_t max, uint64_t *out,
		   struct control_error *err);
/* Hex digits (optional 0x), at most max; `what` names the value in the overflow message. */
int ctl_parse_hex(const char *knob, const char *what, const struct ctl_token *t, uint64_t max,
		  uint64_t *out, struct control_error *err);
int ctl_hex_digit(char c);

/* printf arguments for "%.*s" quoting a token: long ones are cut so the position that
 * follows them in the message survives. */
#define CTL_TOK(t) (int)((t)->len < 64 ? (t)->len : 64), (t)->p

/* control_errors.c: every error goes through ctl_fail, so all read alike:
 * "<knob>: <problem>[ at column N]". Each returns -1. */
int ctl_fail(struct control_error *err, const char *knob, size_t column, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* "<knob>: unknown <what> '<token>' at column N[ (did you mean '<x>'?)]" over `known`
 * (NULL-terminated); fold_case for XED names. */
int ctl_fail_unknown(struct control_error *err, const char *knob, const char *what,
		     const struct ctl_token *t, const char *const *known, bool fold_case);
/* The nearest of `known` to the token by edit distance, or NULL when none is close. */
const char *ctl_suggest(const char *word, size_t len, const char *const *known, bool fold_case);
int ctl_out_of_memory(struct control_error *err, const char *knob);

/* control_names.c */
struct ctl_arity {
	unsigned min, max;
};
extern const char *const ctl_event_words[];	/* NULL-terminated, enum order */
extern const char *const ctl_type_words[];	/* NULL-terminated, enum order */
extern const char *const ctl_modifier_words[];	/* NULL-terminated */
extern const char *const ctl_element_words[];	/* events and chain-level keywords */
extern const struct ctl_arity ctl_type_arity[]; /* enum order */
int ctl_lookup(const struct ctl_token *t, const char *const *words);

/* control_values.c: the value fields of alarm `a` (type set) from el->field[*next]. */
int ctl_parse_values(const char *knob, const struct ctl_element *el, size_t *next,
		     struct control_alarm *a, struct control_error *err);

/* control_parse.c */
int ctl_parse_chain(const char *knob, const char *text, struct control_chain *chain,
		    struct control_error *err);
void ctl_chain_release(struct control_chain *chain);

/* control_spec.c */
int ctl_spec_append(struct control_spec *spec, const char *knob, const char *text,
		    struct control_error *err);

/* control_legacy.c */
int ctl_legacy_finish(struct control_spec *spec, struct control_error *err);

#endif

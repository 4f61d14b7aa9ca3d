/* One -control value into one chain: alarms, their modifiers, and the chain options. */
#include "control_internal.h"

#include <stdlib.h>
#include <string.h>

/* Bit n stands for ctl_modifier_words[n]. */
enum modifier_bit { MOD_COUNT = 1, MOD_TID = 2, MOD_BCAST = 4, MOD_GLOBAL = 8 };

static void alarm_release(struct control_alarm *a)
{
	switch (a->type) {
	case CONTROL_ALARM_ADDRESS:
		free(a->u.address.symbol);
		free(a->u.address.image);
		break;
	case CONTROL_ALARM_PCONTROL:
		free(a->u.pcontrol);
		break;
	case CONTROL_ALARM_ENTER_FUNC:
	case CONTROL_ALARM_EXIT_FUNC:
		free(a->u.func);
		break;
	default:
		break;
	}
	free(a->text);
}

void ctl_chain_release(struct control_chain *chain)
{
	for (size_t i = 0; i < chain->nalarms; i++)
		alarm_release(&chain->alarms[i]);
	free(chain->alarms);
	free(chain->name);
	free(chain->waitfor);
	free(chain->source);
	memset(chain, 0, sizeof(*chain));
}

static int extra_fields(const char *knob, const struct ctl_element *el, size_t used,
			struct control_error *err)
{
	if (el->nfields <= used)
		return 0;
	const struct ctl_token *t = &el->field[used];
	return ctl_fail(err, knob, t->column, "unexpected value '%.*s'", CTL_TOK(t));
}

/* `count<N>` and `tid<N>`: the number is glued to the word. 1 if `t` is `word` followed by
 * a digit or nothing (then *number is what follows), 0 if it is some other word. */
static int glued(const struct ctl_token *t, const char *word, struct ctl_token *number)
{
	size_t n = strlen(word);
	if (t->len < n || memcmp(t->p, word, n) != 0)
		return 0;
	if (t->len > n && (t->p[n] < '0' || t->p[n] > '9'))
		return 0;
	*number = (struct ctl_token){t->p + n, t->len - n, t->column + n};
	return 1;
}

static int glued_number(const char *knob, const char *word, const struct ctl_token *number,
			uint64_t max, uint64_t *out, struct control_error *err)
{
	if (number->len == 0)
		return ctl_fail(err, knob, number->column, "missing number after '%s'", word);
	return ctl_parse_uint(knob, number, max, out, err);
}

static int parse_modifier(const char *knob, const struct ctl_token *t, struct control_alarm *a,
			  unsigned *seen, struct control_error *err)
{
	struct ctl_token number;
	uint64_t v = 0;
	unsigned bit;
	if (t->len == 0)
		return ctl_fail(err, knob, t->column, "empty field");
	if (t->p[0] >= '0' && t->p[0] <= '9')
		return ctl_fail(err, knob, t->column, "unexpected value '%.*s'", CTL_TOK(t));
	if (ctl_tok_is(t, "bcast")) {
		bit = MOD_BCAST;
	} else if (ctl_tok_is(t, "global")) {
		bit = MOD_GLOBAL;
	} else if (glued(t, "count", &number)) {
		bit = MOD_COUNT;
		if (glued_number(knob, "count", &number, CONTROL_COUNT_MAX, &v, err))
			return -1;
	} else if (glued(t, "tid", &number)) {
		bit = MOD_TID;
		if (glued_number(knob, "tid", &number, CONTROL_TID_MAX, &v, err))
			return -1;
	} else {
		return ctl_fail_unknown(err, knob, "modifier", t, ctl_modifier_words, false);
	}
	if (*seen & bit)
		return ctl_fail(err, knob, t->column, "duplicate modifier '%s'",
				ctl_modifier_words[__builtin_ctz(bit)]);
	*seen |= bit;
	if ((*seen & (MOD_TID | MOD_GLOBAL)) == (MOD_TID | MOD_GLOBAL))
		return ctl_fail(err, knob, t->column, "'tid' and 'global' cannot be combined");
	switch (bit) {
	case MOD_COUNT:
		if (a->type == CONTROL_ALARM_UNIFORM)
			return ctl_fail(err, knob, t->column, "'count' does not apply to uniform");
		if (v == 0)
			return ctl_fail(err, knob, number.column, "count must be at least 1");
		a->count = v;
		break;
	case MOD_TID:
		a->has_tid = true;
		a->tid = (uint32_t)v;
		break;
	case MOD_BCAST:
		a->bcast = true;
		break;
	default:
		a->global = true;
		break;
	}
	return 0;
}

static int push_alarm(const char *knob, struct control_chain *chain, struct control_alarm *a,
		      struct control_error *err)
{
	struct control_alarm *grown =
	    realloc(chain->alarms, (chain->nalarms + 1) * sizeof(*chain->alarms));
	if (!grown) {
		alarm_release(a);
		return ctl_out_of_memory(err, knob);
	}
	chain->alarms = grown;
	chain->alarms[chain->nalarms++] = *a;
	return 0;
}

/* `<event>:<type>:<values>[:modifiers]`, or `uniform:<p>:<l>:<c>[:modifiers]` when event is
 * CONTROL_EVENT_NONE. */
static int parse_alarm(const char *knob, const struct ctl_element *el, enum control_event event,
		       struct control_chain *chain, struct control_error *err)
{
	struct control_alarm a = {.event = event, .count = 1, .column = el->column};
	size_t next = 1;
	if (event == CONTROL_EVENT_NONE) {
		a.type = CONTROL_ALARM_UNIFORM;
	} else {
		if (el->nfields < 2 || el->field[1].len == 0)
			return ctl_fail(err, knob,
					el->nfields < 2 ? el->end_column : el->field[1].column,
					"missing alarm type");
		int type = ctl_lookup(&el->field[1], ctl_type_words);
		if (type < 0)
			return ctl_fail_unknown(err, knob, "alarm type", &el->field[1],
						ctl_type_words, false);
		if (type == CONTROL_ALARM_UNIFORM)
			return ctl_fail(err, knob, el->column,
					"uniform takes no event (write uniform:<period>:<length>"
					":<count>)");
		a.type = (enum control_alarm_type)type;
		next = 2;
	}
	unsigned seen = 0;
	int rc = ctl_parse_values(knob, el, &next, &a, err);
	for (size_t i = next; rc == 0 && i < el->nfields; i++)
		rc = parse_modifier(knob, &el->field[i], &a, &seen, err);
	if (rc) {
		alarm_release(&a);
		return -1;
	}
	return push_alarm(knob, chain, &a, err);
}

/* A `bcast` element of its own marks the alarm before it, as in
 * start:address:foo,bcast,stop:address:bar,bcast. */
static int parse_bcast(const char *knob, const struct ctl_element *el, struct control_chain *chain,
		       struct control_error *err)
{
	if (extra_fields(knob, el, 1, err))
		return -1;
	if (chain->nalarms == 0)
		return ctl_fail(err, knob, el->column, "'bcast' follows no alarm");
	struct control_alarm *a = &chain->alarms[chain->nalarms - 1];
	if (a->bcast)
		return ctl_fail(err, knob, el->column, "duplicate modifier 'bcast'");
	a->bcast = true;
	return 0;
}

static int parse_option_value(const char *knob, const struct ctl_element *el, const char *word,
			      struct control_error *err)
{
	if (el->nfields < 2 || el->field[1].len == 0)
		return ctl_fail(err, knob, el->nfields < 2 ? el->end_column : el->field[1].column,
				"missing value for '%s'", word);
	return extra_fields(knob, el, 2, err);
}

enum option { OPT_REPEAT, OPT_NAME, OPT_WAITFOR };
static const char *const option_words[] = {"repeat", "name", "waitfor", NULL};

static int parse_option(const char *knob, const struct ctl_element *el, enum option opt,
			unsigned *seen, struct control_chain *chain, struct control_error *err)
{
	const char *word = option_words[opt];
	if (*seen & (1u << opt))
		return ctl_fail(err, knob, el->column, "duplicate '%s'", word);
	*seen |= 1u << opt;
	if (opt == OPT_REPEAT) {
		if (el->nfields == 1) {
			chain->repeat = CONTROL_REPEAT_FOREVER;
			return 0;
		}
		if (parse_option_value(knob, el, word, err) ||
		    ctl_parse_uint(knob, &el->field[1], CONTROL_COUNT_MAX, &chain->repeat, err))
			return -1;
		if (chain->repeat == 0)
			return ctl_fail(err, knob, el->field[1].column,
					"repeat must be at least 1");
		return 0;
	}
	if (parse_option_value(knob, el, word, err))
		return -1;
	char *value = ctl_tok_dup(&el->field[1]);
	if (!value)
		return ctl_out_of_memory(err, knob);
	if (opt == OPT_NAME) {
		chain->name = value;
		chain->name_column = el->field[1].column;
	} else {
		chain->waitfor = value;
		chain->waitfor_column = el->field[1].column;
	}
	return 0;
}

static int parse_element(const char *knob, const struct ctl_element *el, unsigned *options,
			 struct control_chain *chain, struct control_error *err)
{
	const struct ctl_token *head = &el->field[0];
	if (head->len == 0)
		return ctl_fail(err, knob, head->column, "missing event");
	int event = ctl_lookup(head, ctl_event_words);
	bool is_uniform = ctl_tok_is(head, "uniform"), is_bcast = ctl_tok_is(head, "bcast");
	int opt = ctl_lookup(head, option_words);
	if ((event >= 0 || is_uniform || is_bcast) && *options)
		return ctl_fail(err, knob, head->column,
				"'%.*s' after a chain option (repeat, name and waitfor come last)",
				CTL_TOK(head));
	if (event >= 0)
		return parse_alarm(knob, el, (enum control_event)event, chain, err);
	if (is_uniform)
		return parse_alarm(knob, el, CONTROL_EVENT_NONE, chain, err);
	if (is_bcast)
		return parse_bcast(knob, el, chain, err);
	if (opt >= 0)
		return parse_option(knob, el, (enum option)opt, options, chain, err);
	if (ctl_lookup(head, ctl_type_words) >= 0)
		return ctl_fail(err, knob, head->column, "missing event before '%.*s'",
				CTL_TOK(head));
	return ctl_fail_unknown(err, knob, "event", head, ctl_element_words, false);
}

/* The canonical text of each alarm, made now so the event log only copies it. */
static int render_alarms(const char *knob, struct control_chain *chain, struct control_error *err)
{
	for (size_t i = 0; i < chain->nalarms; i++) {
		struct control_alarm *a = &chain->alarms[i];
		size_t n = control_alarm_format(a, NULL, 0);
		a->text = malloc(n + 1);
		if (!a->text)
			return ctl_out_of_memory(err, knob);
		control_alarm_format(a, a->text, n + 1);
	}
	return 0;
}

int ctl_parse_chain(const char *knob, const char *text, struct control_chain *chain,
		    struct control_error *err)
{
	memset(chain, 0, sizeof(*chain));
	chain->repeat = 1;
	chain->knob = knob;
	if (text[0] == '\0')
		return ctl_fail(err, knob, 0, "empty value");
	struct ctl_lexer lx;
	struct ctl_element el;
	unsigned options = 0;
	int rc;
	ctl_lexer_init(&lx, knob, text);
	while ((rc = ctl_next_element(&lx, &el, err)) > 0) {
		if (parse_element(knob, &el, &options, chain, err)) {
			rc = -1;
			break;
		}
	}
	if (rc == 0 && chain->nalarms == 0)
		rc = ctl_fail(err, knob, 1, "no alarm in the chain");
	if (rc == 0)
		rc = render_alarms(knob, chain, err);
	if (rc == 0 && !(chain->source = strdup(text)))
		rc = ctl_out_of_memory(err, knob);
	if (rc) {
		ctl_chain_release(chain);
		return -1;
	}
	return 0;
}

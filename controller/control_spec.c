/* The spec's life: chains accumulate, finish checks what needs the whole command line. */
#include "control_internal.h"

#include <stdlib.h>
#include <string.h>

struct control_spec *control_spec_new(void)
{
	struct control_spec *spec = calloc(1, sizeof(*spec));
	if (spec)
		spec->default_start_knob = true;
	return spec;
}

void control_spec_free(struct control_spec *spec)
{
	if (!spec)
		return;
	for (size_t i = 0; i < spec->nchains; i++)
		ctl_chain_release(&spec->chains[i]);
	free(spec->chains);
	free(spec->interactive_file);
	free(spec->log_file);
	free(spec);
}

static struct control_chain *find_chain(struct control_spec *spec, const char *name)
{
	for (size_t i = 0; i < spec->nchains; i++)
		if (spec->chains[i].name && strcmp(spec->chains[i].name, name) == 0)
			return &spec->chains[i];
	return NULL;
}

int ctl_spec_append(struct control_spec *spec, const char *knob, const char *text,
		    struct control_error *err)
{
	if (spec->finished)
		return ctl_fail(err, knob, 0, "given after the controller's knobs were finished");
	struct control_chain chain;
	if (ctl_parse_chain(knob, text, &chain, err))
		return -1;
	if (chain.name && find_chain(spec, chain.name)) {
		ctl_fail(err, knob, chain.name_column, "duplicate chain name '%.64s'", chain.name);
		ctl_chain_release(&chain);
		return -1;
	}
	if (spec->nchains == spec->chains_cap) {
		size_t cap = spec->chains_cap ? 2 * spec->chains_cap : 4;
		struct control_chain *grown = realloc(spec->chains, cap * sizeof(*grown));
		if (!grown) {
			ctl_chain_release(&chain);
			return ctl_out_of_memory(err, knob);
		}
		spec->chains = grown;
		spec->chains_cap = cap;
	}
	spec->chains[spec->nchains++] = chain;
	return 0;
}

int control_spec_add_chain(struct control_spec *spec, const char *text, struct control_error *err)
{
	return ctl_spec_append(spec, "-control", text, err);
}

static int unknown_waitfor(struct control_spec *spec, const struct control_chain *c,
			   struct control_error *err)
{
	const char **names = calloc(spec->nchains + 1, sizeof(*names));
	if (!names)
		return ctl_out_of_memory(err, c->knob);
	size_t n = 0;
	for (size_t i = 0; i < spec->nchains; i++)
		if (spec->chains[i].name)
			names[n++] = spec->chains[i].name;
	struct ctl_token t = {c->waitfor, strlen(c->waitfor), c->waitfor_column};
	ctl_fail_unknown(err, c->knob, "chain name in waitfor", &t, names, false);
	free(names);
	return -1;
}

/* A chain that waits, directly or not, for itself would never run: say so now. */
static int resolve_waitfor(struct control_spec *spec, struct control_error *err)
{
	for (size_t i = 0; i < spec->nchains; i++) {
		struct control_chain *c = &spec->chains[i];
		if (!c->waitfor)
			continue;
		struct control_chain *target = find_chain(spec, c->waitfor);
		if (!target)
			return unknown_waitfor(spec, c, err);
		c->waitfor_chain = (size_t)(target - spec->chains);
	}
	for (size_t i = 0; i < spec->nchains; i++) {
		size_t at = i;
		for (size_t steps = 0; steps < spec->nchains && spec->chains[at].waitfor; steps++) {
			at = spec->chains[at].waitfor_chain;
			if (at == i)
				return ctl_fail(err, spec->chains[i].knob,
						spec->chains[i].waitfor_column,
						"chain '%.64s' waits for itself through waitfor",
						spec->chains[i].name);
		}
	}
	return 0;
}

static bool starts_region(const struct control_alarm *a)
{
	return a->event == CONTROL_EVENT_START || a->type == CONTROL_ALARM_UNIFORM;
}

int control_spec_finish(struct control_spec *spec, struct control_error *err)
{
	if (spec->finished)
		return ctl_fail(err, "-control", 0, "finished twice");
	if (ctl_legacy_finish(spec, err) || resolve_waitfor(spec, err))
		return -1;
	bool any_start = false;
	for (size_t i = 0; i < spec->nchains; i++) {
		const struct control_chain *c = &spec->chains[i];
		for (size_t j = 0; j < c->nalarms; j++) {
			const struct control_alarm *a = &c->alarms[j];
			any_start |= starts_region(a);
			if (a->type == CONTROL_ALARM_INTERACTIVE && !spec->interactive_file)
				return ctl_fail(err, c->knob, a->column,
						"interactive alarm needs -interactive-file");
		}
	}
	spec->default_start = spec->default_start_knob && !any_start;
	spec->finished = true;
	return 0;
}

/* The controller's other knobs: the old -skip/-length and -uniform-* forms (kept as numbers
 * until finish turns them into chains), files, the default start, and argv delegation. */
#include "control_internal.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum knob {
	KNOB_CONTROL,
	KNOB_SKIP,
	KNOB_LENGTH,
	KNOB_USKIP,
	KNOB_UPERIOD,
	KNOB_ULENGTH,
	KNOB_UCOUNT,
	KNOB_INTERACTIVE_FILE,
	KNOB_DEFAULT_START,
	KNOB_LOG,
	KNOB_COUNT,
};

/* The drivers' help shows these (docs/user-guide.md has the same table). */
static const struct control_knob_doc knobs[KNOB_COUNT] = {
    [KNOB_CONTROL] = {"-control", "SPEC", "a region chain (docs/controller.md); may be repeated",
		      "none"},
    [KNOB_SKIP] = {"-skip", "N", "legacy: the region starts after N instructions", "none"},
    [KNOB_LENGTH] = {"-length", "M", "legacy: the region stops M instructions after its start",
		     "none"},
    [KNOB_USKIP] = {"-uniform-skip", "S",
		    "legacy sampling: instructions before the first -uniform-period", "0"},
    [KNOB_UPERIOD] = {"-uniform-period", "P", "legacy sampling: a sample every P instructions",
		      "none"},
    [KNOB_ULENGTH] = {"-uniform-length", "L", "legacy sampling: L instructions per sample", "none"},
    [KNOB_UCOUNT] = {"-uniform-count", "C", "legacy sampling: C samples", "none"},
    [KNOB_INTERACTIVE_FILE] = {"-interactive-file", "F",
			       "the interactive controller's port file, F.<pid> "
			       "(scripts/ctrl_client)",
			       "none"},
    [KNOB_DEFAULT_START] = {"-log:controller_default_start", "0|1",
			    "1: with no start event given, the region starts at the first "
			    "instruction",
			    "1"},
    [KNOB_LOG] = {"-controller_log", "FILE", "one line per controller event fired or ignored",
		  "none"},
};

const struct control_knob_doc *control_knob_doc(size_t i)
{
	return i < KNOB_COUNT ? &knobs[i] : NULL;
}

static int knob_id(const char *arg)
{
	for (int i = 0; i < KNOB_COUNT; i++)
		if (strcmp(arg, knobs[i].name) == 0)
			return i;
	return -1;
}

bool control_is_knob(const char *arg)
{
	return knob_id(arg) >= 0;
}

/* Where each numeric knob's value goes, and the flag saying it was given. */
#define SLOT(value, given)                                                                         \
	{                                                                                          \
		offsetof(struct control_legacy, value), offsetof(struct control_legacy, given)     \
	}
static const struct {
	size_t value, given;
} number_slots[] = {
    [KNOB_SKIP] = SLOT(skip, has_skip),		 [KNOB_LENGTH] = SLOT(length, has_length),
    [KNOB_USKIP] = SLOT(uskip, has_uskip),	 [KNOB_UPERIOD] = SLOT(uperiod, has_uperiod),
    [KNOB_ULENGTH] = SLOT(ulength, has_ulength), [KNOB_UCOUNT] = SLOT(ucount, has_ucount),
};

static int set_number(struct control_spec *spec, enum knob id, const char *value,
		      struct control_error *err)
{
	const char *knob = knobs[id].name;
	char *base = (char *)&spec->legacy;
	uint64_t *slot = (uint64_t *)(base + number_slots[id].value);
	bool *given = (bool *)(base + number_slots[id].given);
	if (*given)
		return ctl_fail(err, knob, 0, "given twice");
	struct ctl_token t = {value, strlen(value), 1};
	if (ctl_parse_uint(knob, &t, CONTROL_COUNT_MAX, slot, err))
		return -1;
	/* Zero skips are harmless; a zero-sized or zero-count sample is a mistake. */
	if (*slot == 0 && (id == KNOB_UPERIOD || id == KNOB_ULENGTH || id == KNOB_UCOUNT))
		return ctl_fail(err, knob, 1, "must be at least 1");
	*given = true;
	return 0;
}

static int set_path(const char *knob, char **slot, const char *value, struct control_error *err)
{
	if (*slot)
		return ctl_fail(err, knob, 0, "given twice");
	*slot = strdup(value);
	return *slot ? 0 : ctl_out_of_memory(err, knob);
}

int control_spec_set_knob(struct control_spec *spec, const char *knob, const char *value,
			  struct control_error *err)
{
	int id = knob_id(knob);
	if (id < 0)
		return ctl_fail(err, knob, 0, "not a controller knob");
	if (!value)
		return ctl_fail(err, knob, 0, "missing value");
	if (id == KNOB_CONTROL)
		return control_spec_add_chain(spec, value, err);
	if (spec->finished)
		return ctl_fail(err, knob, 0, "given after the controller's knobs were finished");
	if (value[0] == '\0')
		return ctl_fail(err, knob, 0, "empty value");
	switch (id) {
	case KNOB_INTERACTIVE_FILE:
		return set_path(knob, &spec->interactive_file, value, err);
	case KNOB_LOG:
		return set_path(knob, &spec->log_file, value, err);
	case KNOB_DEFAULT_START:
		if (spec->legacy.has_default_start)
			return ctl_fail(err, knob, 0, "given twice");
		if (strcmp(value, "0") != 0 && strcmp(value, "1") != 0)
			return ctl_fail(err, knob, 1, "bad value '%.64s' (expected 0 or 1)", value);
		spec->legacy.has_default_start = true;
		spec->default_start_knob = value[0] == '1';
		return 0;
	default:
		return set_number(spec, (enum knob)id, value, err);
	}
}

int control_spec_take_knob(struct control_spec *spec, int argc, char *const *argv, int *i,
			   struct control_error *err)
{
	if (*i >= argc || !control_is_knob(argv[*i]))
		return 0;
	const char *value = *i + 1 < argc ? argv[*i + 1] : NULL;
	if (control_spec_set_knob(spec, argv[*i], value, err))
		return -1;
	*i += 2;
	return 1;
}

/* -skip N -length M is start:icount:N,stop:icount:M; either may stand alone. */
static int skip_length_chain(struct control_spec *spec, struct control_error *err)
{
	const struct control_legacy *l = &spec->legacy;
	char text[96];
	if (l->has_skip && l->has_length)
		snprintf(text, sizeof(text), "start:icount:%llu,stop:icount:%llu",
			 (unsigned long long)l->skip, (unsigned long long)l->length);
	else if (l->has_skip)
		snprintf(text, sizeof(text), "start:icount:%llu", (unsigned long long)l->skip);
	else
		snprintf(text, sizeof(text), "stop:icount:%llu", (unsigned long long)l->length);
	return ctl_spec_append(spec, l->has_skip ? "-skip" : "-length", text, err);
}

/* -uniform-skip S -uniform-period P -uniform-length L -uniform-count C is
 * precond:icount:S,uniform:P:L:C: each number carries over unchanged (docs/controller.md
 * says why the seed's own example, which turns period 500 into 800, is not followed). */
static int uniform_chain(struct control_spec *spec, struct control_error *err)
{
	const struct control_legacy *l = &spec->legacy;
	static const char together[] =
	    "missing: -uniform-period, -uniform-length and -uniform-count go together";
	if (!l->has_uperiod)
		return ctl_fail(err, knobs[KNOB_UPERIOD].name, 0, "%s", together);
	if (!l->has_ulength)
		return ctl_fail(err, knobs[KNOB_ULENGTH].name, 0, "%s", together);
	if (!l->has_ucount)
		return ctl_fail(err, knobs[KNOB_UCOUNT].name, 0, "%s", together);
	if (l->ulength > l->uperiod)
		return ctl_fail(err, knobs[KNOB_ULENGTH].name, 0,
				"%llu exceeds -uniform-period %llu", (unsigned long long)l->ulength,
				(unsigned long long)l->uperiod);
	char text[160];
	int n = 0;
	if (l->uskip)
		n = snprintf(text, sizeof(text), "precond:icount:%llu,",
			     (unsigned long long)l->uskip);
	snprintf(text + n, sizeof(text) - (size_t)n, "uniform:%llu:%llu:%llu",
		 (unsigned long long)l->uperiod, (unsigned long long)l->ulength,
		 (unsigned long long)l->ucount);
	return ctl_spec_append(spec, "-uniform-period", text, err);
}

int ctl_legacy_finish(struct control_spec *spec, struct control_error *err)
{
	const struct control_legacy *l = &spec->legacy;
	if ((l->has_skip || l->has_length) && skip_length_chain(spec, err))
		return -1;
	if ((l->has_uskip || l->has_uperiod || l->has_ulength || l->has_ucount) &&
	    uniform_chain(spec, err))
		return -1;
	return 0;
}

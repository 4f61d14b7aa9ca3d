#include "knobs.h"

#include <stdio.h>
#include <string.h>

#include "control_spec.h"

static bool is_bool_value(const char *s)
{
	return s && (!strcmp(s, "0") || !strcmp(s, "1"));
}

static const struct knob *find(const struct knobs_parser *p, const char *name, void **values)
{
	for (size_t s = 0; s < p->nsets; s++)
		for (size_t k = 0; k < p->sets[s].count; k++)
			if (!strcmp(p->sets[s].knobs[k].name, name)) {
				*values = p->sets[s].values;
				return &p->sets[s].knobs[k];
			}
	return NULL;
}

static void usage(const struct knobs_parser *p)
{
	printf("usage: %s\n\nknobs:\n", p->usage);
	for (size_t s = 0; s < p->nsets; s++)
		for (size_t i = 0; i < p->sets[s].count; i++) {
			const struct knob *k = &p->sets[s].knobs[i];
			const char *field = (const char *)p->sets[s].values + k->offset;
			char name[64];
			snprintf(name, sizeof name, "%s %s", k->name,
				 k->kind == KNOB_BOOL ? "[0|1]" : k->value);
			printf("  %-28s %s", name, k->help);
			if (k->kind == KNOB_BOOL)
				printf(" (default %d)\n", *(const bool *)field);
			else if (*(const char *const *)field)
				printf(" (default %s)\n", *(const char *const *)field);
			else
				printf("\n");
		}
	printf("  %-28s %s\n", "-control SPEC", "region control (docs/controller.md)");
	printf("  %-28s %s\n", "-controller_log FILE", "log every controller event");
	printf("  %-28s %s\n", "-skip N -length M", "legacy region knobs");
	printf("  %-28s %s\n", "-uniform-*, -interactive-file", "legacy and interactive control");
}

enum knobs_step knobs_step(const struct knobs_parser *p, int argc, char **argv, int *i)
{
	const char *arg = argv[*i];
	struct control_error cerr;
	int taken = control_spec_take_knob(p->control, argc, argv, i, &cerr);
	if (taken < 0) {
		fprintf(stderr, "%s: %s\n", p->tool, cerr.message);
		return KNOBS_ERROR;
	}
	if (taken)
		return KNOBS_TAKEN;
	if (!strcmp(arg, "-h") || !strcmp(arg, "-help") || !strcmp(arg, "--help")) {
		usage(p);
		return KNOBS_HELP;
	}
	if (arg[0] != '-' || !strcmp(arg, "--"))
		return KNOBS_POSITIONAL;
	void *values;
	const struct knob *k = find(p, arg, &values);
	if (!k) {
		fprintf(stderr, "%s: error: unknown knob '%s' (see %s -help)\n", p->tool, arg,
			p->tool);
		return KNOBS_ERROR;
	}
	char *field = (char *)values + k->offset;
	if (k->kind == KNOB_BOOL) {
		bool value = true;
		if (*i + 1 < argc && is_bool_value(argv[*i + 1]))
			value = argv[++*i][0] == '1';
		*(bool *)field = value;
	} else {
		if (*i + 1 >= argc || !strcmp(argv[*i + 1], "--")) {
			fprintf(stderr, "%s: error: knob '%s' needs a value\n", p->tool, k->name);
			return KNOBS_ERROR;
		}
		*(const char **)field = argv[++*i];
	}
	++*i;
	return KNOBS_TAKEN;
}

int knobs_finish(const struct knobs_parser *p)
{
	struct control_error cerr;
	if (!control_spec_finish(p->control, &cerr))
		return 0;
	fprintf(stderr, "%s: %s\n", p->tool, cerr.message);
	return -1;
}

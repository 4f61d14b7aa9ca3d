#include "knobs.h"

#include <string.h>

#include "control_spec.h"

static bool is_bool_value(const char *s)
{
	return s && (!strcmp(s, "0") || !strcmp(s, "1"));
}

static const struct knob *find(const struct knob_set *sets, size_t nsets, const char *name,
			       void **values)
{
	for (size_t s = 0; s < nsets; s++)
		for (size_t k = 0; k < sets[s].count; k++)
			if (!strcmp(sets[s].knobs[k].name, name)) {
				*values = sets[s].values;
				return &sets[s].knobs[k];
			}
	return NULL;
}

int knobs_take(const struct knob_set *sets, size_t nsets, struct control_spec *control, int argc,
	       char **argv, int *i, char *err, size_t errlen)
{
	if (control) {
		struct control_error cerr;
		int taken = control_spec_take_knob(control, argc, argv, i, &cerr);
		if (taken < 0)
			snprintf(err, errlen, "%s", cerr.message);
		if (taken)
			return taken;
	}
	void *values;
	const struct knob *k = find(sets, nsets, argv[*i], &values);
	if (!k)
		return 0;
	char *field = (char *)values + k->offset;
	if (k->kind == KNOB_BOOL) {
		bool value = true;
		if (*i + 1 < argc && is_bool_value(argv[*i + 1]))
			value = argv[++*i][0] == '1';
		*(bool *)field = value;
	} else {
		if (*i + 1 >= argc || !strcmp(argv[*i + 1], "--")) {
			snprintf(err, errlen, "error: knob '%s' needs a value", k->name);
			return -1;
		}
		*(const char **)field = argv[++*i];
	}
	++*i;
	return 1;
}

bool knobs_help_wanted(const char *arg)
{
	return !strcmp(arg, "-h") || !strcmp(arg, "-help") || !strcmp(arg, "--help");
}

void knobs_usage(FILE *to, const struct knob_set *sets, size_t nsets)
{
	for (size_t s = 0; s < nsets; s++)
		for (size_t i = 0; i < sets[s].count; i++) {
			const struct knob *k = &sets[s].knobs[i];
			const char *field = (const char *)sets[s].values + k->offset;
			char name[64];
			snprintf(name, sizeof name, "%s %s", k->name,
				 k->kind == KNOB_BOOL ? "[0|1]" : k->value);
			fprintf(to, "  %-28s %s", name, k->help);
			if (k->kind == KNOB_BOOL)
				fprintf(to, " (default %d)\n", *(const bool *)field);
			else if (*(const char *const *)field)
				fprintf(to, " (default %s)\n", *(const char *const *)field);
			else
				fprintf(to, "\n");
		}
}

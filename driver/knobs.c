#include "knobs.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "control_spec.h"

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

/* One line of the help: the knob and its value, what it does, its default. */
static void usage_line(const char *name, const char *value, const char *help, const char *range,
		       const char *def)
{
	char knob[64];
	snprintf(knob, sizeof knob, "%s %s", name, value);
	printf("  %-28s %s (%sdefault %s)\n", knob, help, range, def);
}

/* Every knob with its default, from the tables (docs/user-guide.md has the same; the test
 * jit.help_matches_guide compares them). */
static void usage(const struct knobs_parser *p)
{
	printf("usage: %s\n\nknobs:\n", p->usage);
	for (size_t s = 0; s < p->nsets; s++)
		for (size_t i = 0; i < p->sets[s].count; i++) {
			const struct knob *k = &p->sets[s].knobs[i];
			const char *field = (const char *)p->sets[s].values + k->offset;
			char def[32] = "", range[48] = "";
			const char *text = def;
			if (k->kind == KNOB_BOOL) {
				snprintf(def, sizeof def, "%d", *(const bool *)field);
			} else if (k->kind == KNOB_UINT) {
				snprintf(def, sizeof def, "%lu", *(const uint64_t *)field);
				snprintf(range, sizeof range, "0 to %lu, ", k->max);
			} else {
				text = *(const char *const *)field;
				text = text ? text : k->unset ? k->unset : "none";
			}
			usage_line(k->name, k->kind == KNOB_BOOL ? "[0|1]" : k->value, k->help,
				   range, text);
		}
	const struct control_knob_doc *c;
	for (size_t i = 0; (c = control_knob_doc(i)); i++)
		usage_line(c->name, c->value, c->help, "", c->unset);
}

/* 1 or 0 for the words a boolean knob accepts as its value, -1 for any other word. */
static int bool_word(const char *s)
{
	static const char *const words[][2] = {
	    {"0", "1"}, {"false", "true"}, {"no", "yes"}, {"off", "on"}};
	for (size_t i = 0; i < sizeof words / sizeof words[0]; i++)
		for (int v = 0; v < 2; v++)
			if (!strcasecmp(s, words[i][v]))
				return v;
	return -1;
}

static bool all_digits(const char *s)
{
	return *s && strspn(s, "0123456789") == strlen(s);
}

/* The argument after knob argv[i], which requires a value; NULL after saying so when there
 * is none or (unless any_word) when it is another knob or `--`. */
static const char *required_value(const struct knobs_parser *p, int argc, char **argv, int i,
				  bool any_word)
{
	const char *v = i + 1 < argc ? argv[i + 1] : NULL;
	if (v && (any_word || v[0] != '-'))
		return v;
	if (v)
		fprintf(stderr, "%s: error: knob '%s' needs a value, not '%s'\n", p->tool, argv[i],
			v);
	else
		fprintf(stderr, "%s: error: knob '%s' needs a value\n", p->tool, argv[i]);
	return NULL;
}

/* The controller's knobs all take one value: checked here like ours, parsed there. */
static enum knobs_step take_control_knob(const struct knobs_parser *p, int argc, char **argv,
					 int *i)
{
	struct control_error cerr;
	if (!required_value(p, argc, argv, *i, false))
		return KNOBS_ERROR;
	if (control_spec_take_knob(p->control, argc, argv, i, &cerr) < 0) {
		fprintf(stderr, "%s: %s\n", p->tool, cerr.message);
		return KNOBS_ERROR;
	}
	return KNOBS_TAKEN;
}

static enum knobs_step take_bool(const struct knobs_parser *p, const struct knob *k, bool *field,
				 int argc, char **argv, int *i)
{
	int at = *i + 1;
	int value = at < argc ? bool_word(argv[at]) : -1;
	/* A word starting with '-' is the next knob, or `--`: this one stands alone. A number
	 * is plainly meant as its value; another word may be the operand, put too early. */
	if (value < 0 && at < argc && argv[at][0] != '-') {
		fprintf(stderr, "%s: error: knob '%s' takes 0 or 1, not '%s'", p->tool, k->name,
			argv[at]);
		if (!all_digits(argv[at]))
			fprintf(stderr, " (the %s goes after --)", p->operand);
		fprintf(stderr, "\n");
		return KNOBS_ERROR;
	}
	*field = value != 0; /* alone, it means 1 */
	*i += value < 0 ? 1 : 2;
	return KNOBS_TAKEN;
}

/* Decimal digits, at most max. */
static bool parse_uint(const char *s, uint64_t max, uint64_t *out)
{
	uint64_t v = 0;
	bool ok = all_digits(s);
	for (; ok && *s; s++) {
		uint64_t digit = (uint64_t)(*s - '0');
		ok = digit <= max && v <= (max - digit) / 10;
		v = v * 10 + digit;
	}
	if (ok)
		*out = v;
	return ok;
}

/* A knob of ours that takes the next argument as its value. */
static enum knobs_step take_value(const struct knobs_parser *p, const struct knob *k, char *field,
				  int argc, char **argv, int *i)
{
	/* A number's bad value is named as such, even when it starts with '-'. */
	const char *value =
	    required_value(p, argc, argv, *i, k->kind != KNOB_STRING && k->kind != KNOB_PATH);
	if (!value)
		return KNOBS_ERROR;
	if (k->kind != KNOB_UINT) {
		*(const char **)field = value;
	} else if (!parse_uint(value, k->max, (uint64_t *)field)) {
		fprintf(stderr, "%s: error: knob '%s' takes a number from 0 to %lu, not '%s'\n",
			p->tool, k->name, k->max, value);
		return KNOBS_ERROR;
	}
	*i += 2;
	return KNOBS_TAKEN;
}

enum knobs_step knobs_step(const struct knobs_parser *p, int argc, char **argv, int *i)
{
	const char *arg = argv[*i];
	if (control_is_knob(arg))
		return take_control_knob(p, argc, argv, i);
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
	if (k->kind == KNOB_BOOL)
		return take_bool(p, k, (bool *)field, argc, argv, i);
	return take_value(p, k, field, argc, argv, i);
}

/* `path` from `base`, newly allocated; NULL when out of memory. */
static char *absolute(const char *base, const char *path)
{
	char *out;
	bool slash = base[strlen(base) - 1] == '/';
	return asprintf(&out, "%s%s%s", base, slash ? "" : "/", path) < 0 ? NULL : out;
}

/* Every relative path among the knobs, and the controller's files, made absolute. */
static int absolute_paths(const struct knobs_parser *p)
{
	char *cwd = NULL;
	const char *base = p->base_dir && *p->base_dir ? *p->base_dir : (cwd = getcwd(NULL, 0));
	int status = 0;
	for (size_t s = 0; base && s < p->nsets; s++)
		for (size_t i = 0; i < p->sets[s].count; i++) {
			const struct knob *k = &p->sets[s].knobs[i];
			const char **field = (const char **)((char *)p->sets[s].values + k->offset);
			if (k->kind != KNOB_PATH || !*field || **field == '/')
				continue;
			const char *made = absolute(base, *field);
			status |= made ? 0 : -1;
			*field = made ? made : *field;
		}
	char **files[] = {&p->control->interactive_file, &p->control->log_file};
	for (size_t i = 0; base && i < sizeof files / sizeof files[0]; i++) {
		if (!*files[i] || **files[i] == '/')
			continue;
		char *made = absolute(base, *files[i]);
		status |= made ? 0 : -1;
		if (made) {
			free(*files[i]);
			*files[i] = made;
		}
	}
	free(cwd);
	if (status)
		fprintf(stderr, "%s: error: out of memory\n", p->tool);
	return status;
}

int knobs_finish(const struct knobs_parser *p)
{
	if (absolute_paths(p))
		return -1;
	struct control_error cerr;
	if (!control_spec_finish(p->control, &cerr))
		return 0;
	fprintf(stderr, "%s: %s\n", p->tool, cerr.message);
	return -1;
}

/* `pinball vplist [-top N] [-limit N] [-all] [-contexts] [-plugin PLUGIN] PROFILE`: the
 * hotlists of a value profile (replayer -vprofile, logger -vprofile). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pinball_cli.h"
#include "vprof_list.h"

static const char usage[] =
    "usage: pinball vplist [-top N] [-limit N] [-all] [-contexts] [-plugin PLUGIN] PROFILE\n"
    "  the profile's instructions by executions, each with its most frequent values\n"
    "  -top N         values shown per instruction (default 10)\n"
    "  -limit N       instructions shown (default: all)\n"
    "  -all           also instructions without samples\n"
    "  -contexts      a row per context (thread, call site) and value\n"
    "  -plugin P      format the values with plug-in P (default: the profile's own)\n";

static int error(const char *what, const char *arg)
{
	fprintf(stderr, "pinball: error: vplist: %s%s%s\n", what, arg ? " " : "", arg ? arg : "");
	return 2;
}

/* A count knob's value: digits only. */
static bool count(const char *text, unsigned long *out)
{
	char *end;
	if (!text || !*text || strspn(text, "0123456789") != strlen(text))
		return false;
	*out = strtoul(text, &end, 10);
	return *out > 0 && *out < (1ul << 31);
}

int cmd_vplist(int argc, char **argv)
{
	struct vp_list_options o = {.top = 10};
	const char *file = NULL;
	for (int i = 0; i < argc; i++) {
		const char *a = argv[i];
		unsigned long n;
		if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			fputs(usage, stdout);
			return 0;
		} else if (!strcmp(a, "-top") || !strcmp(a, "-limit")) {
			if (!count(i + 1 < argc ? argv[i + 1] : NULL, &n))
				return error(a, "wants a positive count");
			if (a[1] == 't')
				o.top = (unsigned)n;
			else
				o.limit = n;
			i++;
		} else if (!strcmp(a, "-all")) {
			o.all = true;
		} else if (!strcmp(a, "-contexts")) {
			o.contexts = true;
		} else if (!strcmp(a, "-plugin")) {
			if (i + 1 >= argc)
				return error("-plugin wants a plug-in", NULL);
			o.plugin = argv[++i];
		} else if (a[0] == '-') {
			return error("unknown option", a);
		} else if (file) {
			return error("one profile at a time; extra:", a);
		} else {
			file = a;
		}
	}
	if (!file)
		return error("no profile given (usage: pinball vplist [options] PROFILE)", NULL);
	char err[2048];
	if (vp_list(file, &o, stdout, err, sizeof err)) {
		fprintf(stderr, "pinball: error: %s\n", err);
		return 1;
	}
	return 0;
}

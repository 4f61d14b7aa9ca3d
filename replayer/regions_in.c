#include "regions_in.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The next comma-separated field as a number; false when it is none. */
static bool field(char **p, uint64_t *out)
{
	char *end;
	while (**p == ' ')
		(*p)++;
	if (!isdigit((unsigned char)**p))
		return false;
	errno = 0;
	*out = strtoull(*p, &end, 10);
	if (errno)
		return false;
	while (*end == ' ')
		end++;
	if (*end && *end != ',' && *end != '\n' && *end != '\r')
		return false;
	*p = *end == ',' ? end + 1 : end;
	return true;
}

int regions_in_load(const char *path, struct control_spec *spec, char *err, size_t errlen)
{
	FILE *f = fopen(path, "r");
	if (!f) {
		snprintf(err, errlen, "-log:regions:in: cannot read '%s': %s", path,
			 strerror(errno));
		return -1;
	}
	char *line = NULL;
	size_t cap = 0, lineno = 0, regions = 0;
	int rc = 0;
	while (!rc && getline(&line, &cap, f) > 0) {
		lineno++;
		char *p = line;
		while (isspace((unsigned char)*p))
			p++;
		if (!*p || *p == '#' || (lineno == 1 && !isdigit((unsigned char)*p)))
			continue;
		uint64_t region, start, length;
		if (!field(&p, &region) || !field(&p, &start) || !field(&p, &length) || !length) {
			snprintf(
			    err, errlen,
			    "-log:regions:in: %s line %zu: expected <region>,<start>,<length>,...",
			    path, lineno);
			rc = -1;
			break;
		}
		char chain[96];
		struct control_error cerr;
		snprintf(chain, sizeof chain, "start:icount:%" PRIu64 ",stop:icount:%" PRIu64,
			 start, length);
		if (control_spec_add_chain(spec, chain, &cerr)) {
			snprintf(err, errlen, "-log:regions:in: %s line %zu: %s", path, lineno,
				 cerr.message);
			rc = -1;
		}
		regions++;
	}
	free(line);
	fclose(f);
	if (!rc && !regions) {
		snprintf(err, errlen, "-log:regions:in: %s holds no region", path);
		rc = -1;
	}
	return rc;
}

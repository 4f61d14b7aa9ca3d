#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "simpoint.h"

static bool grow(void **p, size_t *cap, size_t need, size_t size)
{
	if (need <= *cap)
		return true;
	size_t c = *cap ? *cap * 2 : 1024;
	while (c < need)
		c *= 2;
	void *q = realloc(*p, c * size);
	if (!q)
		return false;
	*p = q;
	*cap = c;
	return true;
}

int fv_read(FILE *f, struct fv_set *s, char *err, size_t errlen)
{
	memset(s, 0, sizeof *s);
	size_t cap_int = 0, cap_block = 0, cap_value = 0, cap_ins = 0, nent = 0, lineno = 0;
	char *line = NULL;
	size_t linecap = 0;
	int rc = 0;
	while (getline(&line, &linecap, f) > 0) {
		lineno++;
		if (line[0] != 'T')
			continue;
		if (!grow((void **)&s->start, &cap_int, s->n + 2, sizeof *s->start) ||
		    !grow((void **)&s->instructions, &cap_ins, s->n + 1, sizeof *s->instructions)) {
			snprintf(err, errlen, "out of memory");
			rc = -1;
			break;
		}
		s->start[s->n] = nent;
		double total = 0;
		for (char *p = line + 1; *p;) {
			while (isspace((unsigned char)*p))
				p++;
			if (!*p)
				break;
			char *end;
			unsigned long id, count;
			if (*p != ':' || (id = strtoul(p + 1, &end, 10), *end != ':') ||
			    (count = strtoul(end + 1, &end, 10),
			     *end && !isspace((unsigned char)*end))) {
				snprintf(err, errlen, "line %zu: not a basic-block vector entry",
					 lineno);
				rc = -1;
				break;
			}
			p = end;
			if (!grow((void **)&s->block, &cap_block, nent + 1, sizeof *s->block) ||
			    !grow((void **)&s->value, &cap_value, nent + 1, sizeof *s->value)) {
				snprintf(err, errlen, "out of memory");
				rc = -1;
				break;
			}
			s->block[nent] = (uint32_t)id;
			s->value[nent++] = (double)count;
			total += (double)count;
		}
		if (rc)
			break;
		for (size_t e = s->start[s->n]; e < nent && total > 0; e++)
			s->value[e] /= total;
		s->instructions[s->n++] = total;
		s->start[s->n] = nent;
	}
	free(line);
	if (!rc && !s->n) {
		snprintf(err, errlen, "no basic-block vectors (no line starts with 'T')");
		rc = -1;
	}
	return rc;
}

#include "written.h"

#include "jit_messages.h"
#include "rt_alloc.h"
#include "rt_string.h"

static bool quiet;
static char **lines;
static size_t count, told, cap;

void written_init(bool q)
{
	quiet = q;
}

void written_add(const char *line)
{
	if (quiet || !line[0])
		return;
	if (count == cap) {
		size_t grown_cap = cap ? 2 * cap : 8;
		char **grown = rt_realloc(lines, grown_cap * sizeof *grown);
		if (!grown)
			return; /* the pinball is there; only the line about it is lost */
		lines = grown;
		cap = grown_cap;
	}
	char *copy = rt_strdup(line);
	if (copy)
		lines[count++] = copy;
}

void written_tell(void)
{
	for (; told < count; told++)
		jit_message("wrote %s", lines[told]);
}

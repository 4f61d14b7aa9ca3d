#include "written.h"

#include <string.h>

#include "jit_messages.h"
#include "rt_alloc.h"
#include "rt_string.h"
#include "rt_syscall.h"

static bool quiet;
static const char *told_from;
static char **lines;
static size_t count, told, cap;
static bool forked; /* in a region, and not told yet */
static uint32_t forked_region;

void written_init(bool q, const char *from)
{
	quiet = q;
	told_from = from;
}

/* The line's pinball named from told_from when it lies under it. */
static const char *as_told(const char *line)
{
	size_t n = told_from ? strlen(told_from) : 0;
	if (!n || !rt_starts_with(line, told_from))
		return line;
	if (told_from[n - 1] == '/')
		return line + n;
	return line[n] == '/' ? line + n + 1 : line;
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

void written_forked_in_region(uint32_t region)
{
	forked = !quiet;
	forked_region = region;
}

void written_tell(bool process_ends)
{
	for (; told < count; told++)
		jit_message("wrote %s", as_told(lines[told]));
	if (process_ends && forked)
		jit_message("process %ld (forked in region %u) is not recorded: a forked child is "
			    "recorded from its exec on",
			    rt_getpid(), forked_region);
	forked = forked && !process_ends;
}

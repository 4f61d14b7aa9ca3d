/* The files under a pinball's name that no finished pinball accounts for: temporary parts
 * of a writer that is gone (a killed logger), final-named parts without P.meta (a logger
 * stopped while it renamed them), parts an older pinball of the same name left behind. */
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pinball.h"

static bool all_digits(const char *s, size_t n)
{
	if (n == 0)
		return false;
	for (size_t i = 0; i < n; i++)
		if (s[i] < '0' || s[i] > '9')
			return false;
	return true;
}

/* Length of the part name at the start of s ("pages", "events.12", "meta"), or 0. */
static size_t part_name_length(const char *s)
{
	static const char *const fixed[] = {"threads",	"memmap", "pages",
					    "schedule", "end",	  "meta"};
	for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; i++) {
		size_t n = strlen(fixed[i]);
		if (!strncmp(s, fixed[i], n) && (s[n] == '\0' || s[n] == '.'))
			return n;
	}
	if (strncmp(s, "events.", 7))
		return 0;
	size_t digits = strspn(s + 7, "0123456789");
	return digits && (s[7 + digits] == '\0' || s[7 + digits] == '.') ? 7 + digits : 0;
}

/* One file of the pinball: its part name, and for a temporary file the writer's pid (0 for
 * a name without one, from before pids were in them). */
struct pinball_file {
	const char *path;
	char part[64];
	bool tmp;
	long pid;
};

/* "<part>" or "<part>.tmp-<pid>-<hex>" (or the older "<part>.tmp-<hex>") after the base. */
static bool parse_file(const char *rest, struct pinball_file *f)
{
	size_t n = part_name_length(rest);
	if (!n || n >= sizeof f->part)
		return false;
	memcpy(f->part, rest, n);
	f->part[n] = '\0';
	f->tmp = false;
	f->pid = 0;
	if (rest[n] == '\0')
		return true;
	if (strncmp(rest + n, ".tmp-", 5))
		return false;
	const char *tail = rest + n + 5;
	const char *dash = strchr(tail, '-');
	f->tmp = true;
	if (dash && all_digits(tail, (size_t)(dash - tail)))
		f->pid = strtol(tail, NULL, 10);
	return true;
}

/* Calls fn for every file of the pinball; -1 with err when its directory cannot be read. */
static int for_each_file(const char *basename, void (*fn)(const struct pinball_file *, void *),
			 void *arg, char err[PINBALL_ERR_MAX])
{
	const char *slash = strrchr(basename, '/');
	char dir[4096];
	const char *leaf = slash ? slash + 1 : basename;
	snprintf(dir, sizeof dir, "%.*s", slash ? (int)(slash - basename) + 1 : 2,
		 slash ? basename : "./");
	DIR *d = opendir(dir);
	if (!d) {
		snprintf(err, PINBALL_ERR_MAX, "%s: cannot read its directory: %s", basename,
			 strerror(errno));
		return -1;
	}
	size_t leaf_len = strlen(leaf);
	struct dirent *e;
	while ((e = readdir(d))) {
		if (strncmp(e->d_name, leaf, leaf_len) || e->d_name[leaf_len] != '.')
			continue;
		struct pinball_file f;
		char path[4096 + 256];
		snprintf(path, sizeof path, "%s%s", slash ? dir : "", e->d_name);
		f.path = path;
		if (parse_file(e->d_name + leaf_len + 1, &f))
			fn(&f, arg);
	}
	closedir(d);
	return 0;
}

static bool writer_alive(long pid)
{
	return pid > 0 && (kill((pid_t)pid, 0) == 0 || errno == EPERM);
}

static void count_file(const struct pinball_file *f, void *arg)
{
	struct pinball_leftovers *l = arg;
	if (!f->tmp) {
		if (!strcmp(f->part, "meta"))
			l->has_meta = true;
		else
			l->parts++;
	} else if (writer_alive(f->pid)) {
		l->tmp_live++;
		l->live_pid = f->pid;
	} else {
		l->tmp_dead++;
	}
}

int pinball_leftovers(const char *basename, struct pinball_leftovers *out,
		      char err[PINBALL_ERR_MAX])
{
	memset(out, 0, sizeof *out);
	return for_each_file(basename, count_file, out, err);
}

struct clean_state {
	const char *const *keep;
	bool has_meta;
	int removed;
};

static bool kept(const struct clean_state *c, const char *part)
{
	if (!c->keep)
		return c->has_meta; /* a finished pinball's parts stay; an unfinished one's go */
	for (size_t i = 0; c->keep[i]; i++)
		if (!strcmp(c->keep[i], part))
			return true;
	return false;
}

static void clean_file(const struct pinball_file *f, void *arg)
{
	struct clean_state *c = arg;
	bool remove = f->tmp ? !writer_alive(f->pid) : strcmp(f->part, "meta") && !kept(c, f->part);
	if (remove && unlink(f->path) == 0)
		c->removed++;
}

int pinball_clean(const char *basename, const char *const *keep, char err[PINBALL_ERR_MAX])
{
	struct pinball_leftovers l;
	if (pinball_leftovers(basename, &l, err) < 0)
		return -1;
	struct clean_state c = {keep, l.has_meta, 0};
	if (for_each_file(basename, clean_file, &c, err) < 0)
		return -1;
	return c.removed;
}

void pinball_describe_unfinished(const char *basename, char err[PINBALL_ERR_MAX])
{
	struct pinball_leftovers l;
	char ignored[PINBALL_ERR_MAX];
	if (pinball_leftovers(basename, &l, ignored) < 0 || l.has_meta)
		return;
	if (l.tmp_live)
		snprintf(err, PINBALL_ERR_MAX,
			 "%s: unfinished pinball: process %ld is still writing it", basename,
			 l.live_pid);
	else if (l.parts || l.tmp_dead)
		snprintf(err, PINBALL_ERR_MAX,
			 "%s: unfinished pinball (%zu parts, %zu temporary files, no %s.meta): "
			 "its logger stopped before finishing it; 'pinball clean %s' removes it",
			 basename, l.parts, l.tmp_dead, basename, basename);
}

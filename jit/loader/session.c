/* The driver's side of -jit:session (jit.h): the run's directory of kept translations. */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "jit.h"

#include "../persist_dir.h"

/* The session directories of runs whose process is gone (killed before its end). */
static void sweep_sessions(const char *tmp)
{
	DIR *d = opendir(tmp);
	if (!d)
		return;
	struct dirent *e;
	while ((e = readdir(d))) {
		long owner = persist_session_owner(e->d_name);
		char path[PATH_MAX];
		struct stat st;
		if (!owner || (kill((pid_t)owner, 0) == 0 || errno != ESRCH) ||
		    snprintf(path, sizeof path, "%s/%s", tmp, e->d_name) >= (int)sizeof path ||
		    lstat(path, &st) || !S_ISDIR(st.st_mode) || st.st_uid != geteuid())
			continue;
		persist_dir_remove(path);
	}
	closedir(d);
}

const char *jit_session_start(void)
{
	const char *tmp = getenv("TMPDIR");
	if (!tmp || !*tmp)
		tmp = "/tmp";
	sweep_sessions(tmp);
	static char dir[PATH_MAX];
	if (snprintf(dir, sizeof dir, "%s/%s%d.XXXXXX", tmp, PERSIST_SESSION_PREFIX,
		     (int)getpid()) >= (int)sizeof dir ||
	    !mkdtemp(dir))
		return NULL;
	return dir;
}

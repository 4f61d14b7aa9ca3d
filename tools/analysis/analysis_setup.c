/* Setting the analysis tools up (driver thread, glibc allowed). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analysis.h"
#include "analysis_internal.h"
#include "bbv.h"
#include "debugtrace.h"
#include "footprint.h"
#include "icount.h"
#include "mix.h"
#include "vprof.h"

char *analysis_output_path(const char *file, bool truncate, char *err, size_t errlen)
{
	int fd = open(file, O_WRONLY | O_CREAT | (truncate ? O_TRUNC : 0) | O_CLOEXEC, 0644);
	if (fd < 0) {
		snprintf(err, errlen, "cannot write '%s': %s", file, strerror(errno));
		return NULL;
	}
	close(fd);
	/* (/dev/stdout on a pipe names no file: such a name, absolute, is kept as it is) */
	char *path = realpath(file, NULL);
	if (!path && file[0] == '/')
		path = strdup(file);
	if (!path)
		snprintf(err, errlen, "cannot resolve '%s': %s", file, strerror(errno));
	return path;
}

/* Resolves *file in place when set; false on error. */
static bool resolve(const char *file, char **out, char *err, size_t errlen)
{
	*out = NULL;
	return !file || (*out = analysis_output_path(file, true, err, errlen));
}

int analysis_register(const struct analysis_knobs *k, char *err, size_t errlen)
{
	char *path;
	if (k->icount) {
		if (!resolve(k->oicount, &path, err, errlen))
			return -1;
		icount_tool_register(path);
		analysis_active.icount = true;
	}
	if (k->mix) {
		if (!resolve(k->omix, &path, err, errlen) || mix_tool_register(path, err, errlen))
			return -1;
		analysis_active.mix = true;
	}
	if (k->footprint) {
		if (!resolve(k->ofootprint, &path, err, errlen) ||
		    footprint_tool_register(path, err, errlen))
			return -1;
		analysis_active.footprint = true;
	}
	if (k->debugtrace) {
		if (debugtrace_register(k->odebugtrace, err, errlen))
			return -1;
		analysis_active.debugtrace = true;
	}
	if (k->bbv) {
		if (!k->bbv_interval) {
			snprintf(err, errlen, "-bbv:interval must be at least 1");
			return -1;
		}
		if (bbv_register(k->obbv, k->bbv_interval, err, errlen))
			return -1;
		/* its counts are the block counts, which follow the regions */
		analysis_active.block_counts = true;
	}
	if (k->vprofile.plugin) {
		if (vprof_register(&k->vprofile, err, errlen))
			return -1;
		analysis_active.vprofile = true;
	}
	return 0;
}

#include "vprof_plugin.h"

#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Where the bundled profilers are, from the directory of the running program: as installed
 * (PINTRACE_VPROF_DIR_FROM_BIN, from CMake), and in the build tree. */
static const char *const bundled_dirs[] = {PINTRACE_VPROF_DIR_FROM_BIN, "../lib/pintrace"};

static bool is_path(const char *what)
{
	size_t n = strlen(what);
	return strchr(what, '/') || (n > 3 && !strcmp(what + n - 3, ".so"));
}

/* The bundled profiler `name`'s file, when it exists. */
static bool bundled(const char *name, char *path, size_t cap)
{
	char self[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
	if (n <= 0)
		return false;
	self[n] = '\0';
	char *slash = strrchr(self, '/');
	*slash = '\0';
	for (size_t i = 0; i < sizeof bundled_dirs / sizeof bundled_dirs[0]; i++) {
		snprintf(path, cap, "%s/%s/vp-%s.so", self, bundled_dirs[i], name);
		if (!access(path, R_OK))
			return true;
	}
	return false;
}

static int refuse(struct vp_plugin *p, char *err, size_t errlen, const char *what, const char *why)
{
	snprintf(err, errlen, "value profiler '%s': %s", what, why);
	if (p->handle)
		dlclose(p->handle);
	free(p->path);
	*p = (struct vp_plugin){0};
	return -1;
}

int vp_plugin_load(const char *what, struct vp_plugin *p, char *err, size_t errlen)
{
	*p = (struct vp_plugin){0};
	char file[PATH_MAX + 64], why[PATH_MAX + 128];
	if (is_path(what))
		snprintf(file, sizeof file, "%s", what);
	else if (!bundled(what, file, sizeof file))
		return refuse(p, err, errlen, what,
			      "not a file, nor the name of a bundled profiler (classic, address)");
	if (!(p->path = realpath(file, NULL))) {
		snprintf(why, sizeof why, "cannot open '%s': %s", file, strerror(errno));
		return refuse(p, err, errlen, what, why);
	}
	if (!(p->handle = dlopen(p->path, RTLD_NOW | RTLD_LOCAL))) {
		snprintf(why, sizeof why, "cannot load it: %s", dlerror());
		return refuse(p, err, errlen, what, why);
	}
	p->table = dlsym(p->handle, VPROF_PLUGIN_SYMBOL);
	const struct vprof_plugin *t = p->table;
	if (!t)
		return refuse(p, err, errlen, what,
			      "no '" VPROF_PLUGIN_SYMBOL "' table: not a value profiler");
	if (t->api_version != VPROF_API_VERSION) {
		snprintf(why, sizeof why,
			 "built for value-profiler interface version %u, this pintrace has "
			 "version %d (rebuild it with pintrace_vprofiler.h)",
			 t->api_version, VPROF_API_VERSION);
		return refuse(p, err, errlen, what, why);
	}
	const char *missing = !t->name	      ? "name"
			      : !t->prof_init ? "prof_init"
			      : !t->process   ? "process"
					      : NULL;
	if (missing) {
		snprintf(why, sizeof why, "its table has no %s function (required)", missing);
		return refuse(p, err, errlen, what, why);
	}
	int status = t->init ? t->init() : 0;
	if (status) {
		snprintf(why, sizeof why, "its init refused to start (it returned %d)", status);
		return refuse(p, err, errlen, what, why);
	}
	p->name = t->name();
	if (!p->name || !p->name[0] || strpbrk(p->name, "\n\r")) {
		if (t->release)
			t->release();
		return refuse(p, err, errlen, what, "its name function gives no name on one line");
	}
	return 0;
}

void vp_plugin_unload(struct vp_plugin *p)
{
	if (p->table && p->table->release)
		p->table->release();
	if (p->handle)
		dlclose(p->handle);
	free(p->path);
	*p = (struct vp_plugin){0};
}

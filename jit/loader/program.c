#include "program.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "elf_map.h"

enum { MAX_SCRIPT_DEPTH = 4, SHEBANG_MAX = 256 };

static const char *env_lookup(char *const *envp, const char *key)
{
	size_t n = strlen(key);
	for (; envp && *envp; envp++)
		if (strncmp(*envp, key, n) == 0 && (*envp)[n] == '=')
			return *envp + n + 1;
	return NULL;
}

static bool is_executable_file(const char *path, int *err)
{
	struct stat st;
	if (stat(path, &st) != 0) {
		*err = errno;
		return false;
	}
	if (!S_ISREG(st.st_mode) || access(path, X_OK) != 0) {
		*err = EACCES;
		return false;
	}
	return true;
}

/* PATH search for a name without '/'. Returns 0 or an errno (ENOENT / EACCES). */
static int search_path(const char *name, char *const *envp, char *out, size_t outlen)
{
	const char *path = env_lookup(envp, "PATH");
	if (!path)
		path = "/usr/local/bin:/usr/bin:/bin";
	int result = ENOENT;
	while (*path) {
		const char *colon = strchrnul(path, ':');
		int dirlen = (int)(colon - path);
		snprintf(out, outlen, "%.*s%s%s", dirlen, path, dirlen ? "/" : "", name);
		int err = 0;
		if (is_executable_file(out, &err))
			return 0;
		if (err == EACCES)
			result = EACCES;
		path = *colon ? colon + 1 : colon;
	}
	return result;
}

static int fail(char *err, size_t errlen, int status, const char *file, const char *why)
{
	snprintf(err, errlen, "cannot run '%s': %s", file, why);
	return status;
}

/* Classifies the file's first bytes: ELF checked for x86-64, or a #! line. */
static int inspect(const char *path, char *shebang, size_t shebang_len, char *err, size_t errlen)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return fail(err, errlen, errno == ENOENT ? 127 : 126, path, strerror(errno));
	unsigned char head[SHEBANG_MAX];
	ssize_t n = read(fd, head, sizeof head - 1);
	close(fd);
	if (n < 0)
		return fail(err, errlen, 126, path, strerror(errno));
	shebang[0] = '\0';
	if (n >= 2 && head[0] == '#' && head[1] == '!') {
		head[n] = '\0';
		char *line = (char *)head + 2;
		line[strcspn(line, "\n")] = '\0';
		snprintf(shebang, shebang_len, "%s", line);
		return 0;
	}
	if (n < SELFMAG || memcmp(head, ELFMAG, SELFMAG) != 0)
		return fail(err, errlen, 126, path, "not an ELF executable or #! script");
	const char *problem = elf_header_problem(head, (size_t)n);
	if (problem)
		return fail(err, errlen, 126, path, problem);
	return 0;
}

static char **build_argv(char *const *argv, const char *argv0, int *argc)
{
	int n = 0;
	while (argv[n])
		n++;
	char **v = calloc((size_t)n + 1, sizeof *v);
	for (int i = 0; v && i < n; i++)
		v[i] = argv[i];
	if (v && argv0 && n > 0)
		v[0] = (char *)argv0;
	*argc = n;
	return v;
}

/* Rewrites argv for "#!interp [arg]": interp [arg] script args[1..]. */
static int apply_shebang(struct program *p, const char *line, const char *script, char *err,
			 size_t errlen)
{
	char buf[SHEBANG_MAX];
	snprintf(buf, sizeof buf, "%s", line);
	char *interp = buf + strspn(buf, " \t");
	char *end = interp + strcspn(interp, " \t");
	char *arg = NULL;
	if (*end) {
		*end = '\0';
		arg = end + 1 + strspn(end + 1, " \t");
		size_t len = strlen(arg);
		while (len && (arg[len - 1] == ' ' || arg[len - 1] == '\t' || arg[len - 1] == '\r'))
			arg[--len] = '\0';
		if (!*arg)
			arg = NULL;
	}
	if (!*interp)
		return fail(err, errlen, 126, script, "empty #! line");
	char **v = calloc((size_t)p->argc + 3, sizeof *v);
	if (!v)
		return fail(err, errlen, 1, script, "out of memory");
	int k = 0;
	v[k++] = strdup(interp);
	if (arg)
		v[k++] = strdup(arg);
	v[k++] = strdup(script);
	for (int i = 1; i < p->argc; i++)
		v[k++] = p->argv[i];
	free(p->argv);
	p->argv = v;
	p->argc = k;
	snprintf(p->elf_path, sizeof p->elf_path, "%s", interp);
	return 0;
}

char *const *program_environment(char *const *envp, const struct program *p)
{
	size_t n = 0, at = SIZE_MAX;
	for (; envp && envp[n]; n++)
		if (!strncmp(envp[n], "_=", 2))
			at = n;
	char self[PATH_MAX], named[PATH_MAX];
	if (at == SIZE_MAX || !realpath("/proc/self/exe", self) || !realpath(envp[at] + 2, named) ||
	    strcmp(self, named))
		return envp;
	char **copy = calloc(n + 1, sizeof *copy);
	char *underscore = malloc(strlen(p->exec_path) + 3);
	if (!copy || !underscore) {
		free(copy);
		free(underscore);
		return envp;
	}
	memcpy(copy, envp, n * sizeof *copy);
	sprintf(underscore, "_=%s", p->exec_path);
	copy[at] = underscore;
	return copy;
}

int program_resolve(const char *name, char *const *argv, const char *argv0, char *const *envp,
		    struct program *out, char *err, size_t errlen)
{
	memset(out, 0, sizeof *out);
	if (strchr(name, '/')) {
		snprintf(out->exec_path, sizeof out->exec_path, "%s", name);
	} else {
		int e = search_path(name, envp, out->exec_path, sizeof out->exec_path);
		if (e == ENOENT)
			return fail(err, errlen, 127, name, "command not found");
		if (e)
			return fail(err, errlen, 126, name, strerror(e));
	}
	int e = 0;
	if (!is_executable_file(out->exec_path, &e))
		return fail(err, errlen, e == ENOENT || e == ENOTDIR ? 127 : 126, out->exec_path,
			    strerror(e));
	out->argv = build_argv(argv, argv0, &out->argc);
	if (!out->argv)
		return fail(err, errlen, 1, name, "out of memory");
	snprintf(out->elf_path, sizeof out->elf_path, "%s", out->exec_path);

	for (int depth = 0;; depth++) {
		char shebang[SHEBANG_MAX];
		int status = inspect(out->elf_path, shebang, sizeof shebang, err, errlen);
		if (status)
			return status;
		if (!shebang[0])
			return 0;
		if (depth == MAX_SCRIPT_DEPTH)
			return fail(err, errlen, 126, out->exec_path, "too many levels of #!");
		char script[PATH_MAX];
		snprintf(script, sizeof script, "%s", out->elf_path);
		status = apply_shebang(out, shebang, script, err, errlen);
		if (status)
			return status;
		if (!is_executable_file(out->elf_path, &e))
			return fail(err, errlen, 126, out->elf_path, strerror(e));
	}
}

/* Finding what to run, as execve(2) and a shell would: PATH lookup for a bare name, #!
 * scripts resolved to their interpreter, and the file checked to be an x86-64 ELF. */
#ifndef LOADER_PROGRAM_H
#define LOADER_PROGRAM_H

#include <limits.h>
#include <stddef.h>

struct program {
	char elf_path[PATH_MAX];  /* the ELF file to load (a script's interpreter) */
	char exec_path[PATH_MAX]; /* what was executed: the script itself, for AT_EXECFN */
	char **argv;		  /* the app's argv after #! rewriting (malloc'd array) */
	int argc;
};

/* 0 on success; otherwise the exit status a shell would use (127 not found, 126 cannot
 * execute) with a one-line reason in err naming the file. */
int program_resolve(const char *name, char *const *argv, const char *argv0, char *const *envp,
		    struct program *out, char *err, size_t errlen);

/* The environment for the program the user ran through the tool: `_`, where a shell puts
 * the path of what it runs (bash, zsh), names the program as it would have alone, not the
 * tool (`env` and `make -p` print it). envp itself when `_` does not name the tool. */
char *const *program_environment(char *const *envp, const struct program *p);

#endif

/* A parent that traces its child the way strace and debuggers start: the child asks to be
 * traced (PTRACE_TRACEME) and execs a program; the parent sees it stop at the exec, checks
 * that the process runs that program (its /proc exe link), and lets it go on to its exit.
 * Usage: traced_exec PROGRAM [ARGS...] */
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <sys/ptrace.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	if (argc < 2)
		return 2;
	fflush(stdout);
	pid_t child = fork();
	if (child == 0) {
		if (ptrace(PTRACE_TRACEME, 0, NULL, NULL) != 0) {
			perror("PTRACE_TRACEME");
			_exit(77);
		}
		execv(argv[1], argv + 1);
		_exit(126);
	}
	int status;
	if (waitpid(child, &status, 0) != child)
		return 1;
	if (WIFEXITED(status) && WEXITSTATUS(status) == 77)
		return 77; /* no ptrace here */
	if (!WIFSTOPPED(status) || WSTOPSIG(status) != SIGTRAP) {
		printf("the child did not stop at its exec (status 0x%x)\n", status);
		return 1;
	}
	char link[64], exe[PATH_MAX];
	snprintf(link, sizeof link, "/proc/%d/exe", (int)child);
	ssize_t n = readlink(link, exe, sizeof exe - 1);
	exe[n > 0 ? n : 0] = 0;
	printf("stopped at the exec of %s\n", exe);
	fflush(stdout);
	ptrace(PTRACE_CONT, child, NULL, NULL);
	if (waitpid(child, &status, 0) != child || !WIFEXITED(status))
		return 1;
	printf("the child exited with %d\n", WEXITSTATUS(status));
	return 0;
}

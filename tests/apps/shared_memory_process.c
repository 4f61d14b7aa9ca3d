/* clone(CLONE_VM) without CLONE_THREAD or CLONE_VFORK: a child process that shares its
 * parent's memory and runs beside it (as old thread libraries made their threads). Parent
 * and child hand a counter back and forth through memory ROUNDS times, each waiting for
 * the other's write; the child's result and exit status come back through memory and
 * waitpid. Usage: shared_memory_process plain|sighand */
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

enum { ROUNDS = 1000, STACK = 256 * 1024 };

static atomic_long turn; /* odd: the child's turn */
static long child_sum;

static int child(void *arg)
{
	long sum = (long)arg;
	for (long k = 0; k < ROUNDS; k++) {
		while (atomic_load(&turn) != 2 * k + 1)
			;
		sum += k;
		atomic_store(&turn, 2 * k + 2);
	}
	child_sum = sum;
	return 7;
}

int main(int argc, char **argv)
{
	int flags = CLONE_VM | SIGCHLD;
	if (argc > 1 && !strcmp(argv[1], "sighand"))
		flags |= CLONE_FS | CLONE_FILES | CLONE_SIGHAND;
	char *stack = malloc(STACK);
	pid_t pid = clone(child, stack + STACK, flags, (void *)100);
	if (pid < 0) {
		perror("clone");
		return 1;
	}
	for (long k = 0; k < ROUNDS; k++) {
		while (atomic_load(&turn) != 2 * k)
			;
		atomic_store(&turn, 2 * k + 1);
	}
	int status;
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return 1;
	printf("%d rounds; the child summed %ld and exited with %d\n", ROUNDS, child_sum,
	       WEXITSTATUS(status));
	return 0;
}

/* A process that forks while it maps memory MAP_SHARED and writable ("shared"), or only
 * privately ("private"); the child writes 42 into that memory and exits, the parent waits
 * for it and prints what it reads there (shared: 42; private: 0). */
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	int shared = argc > 1 && !strcmp(argv[1], "shared");
	int *word = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
			 (shared ? MAP_SHARED : MAP_PRIVATE) | MAP_ANONYMOUS, -1, 0);
	if (word == MAP_FAILED)
		return 2;
	pid_t pid = fork();
	if (pid == 0) {
		*word = 42;
		_exit(0);
	}
	int status;
	waitpid(pid, &status, 0);
	printf("%d\n", *word);
	return 0;
}

/* Children forked inside a recorded region, in the logger's default first-touch mode: each
 * child reads memory the parent wrote before the region (withheld from the parent's
 * recording at region start) and writes it to a pipe with write(2); the parent prints what
 * arrived and how the children ended. A child must see and write exactly that memory. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ssc_mark.h"

static char message[3 * 4096];

static int child(int fd, int n)
{
	char line[64];
	int len = snprintf(line, sizeof line, "child %d: %.3s\n", n, message + n * 4096);
	return write(fd, line, (size_t)len) == len ? 40 + n : 1;
}

int main(void)
{
	for (int i = 0; i < 3; i++)
		memset(message + i * 4096, 'a' + i, 4096);
	SSC_MARK(0x11223344);
	for (int n = 0; n < 3; n++) {
		int fds[2];
		if (pipe(fds))
			return 1;
		pid_t pid = fork();
		if (pid == 0)
			_exit(child(fds[1], n));
		close(fds[1]); /* a child that dies leaves the pipe empty, not open */
		int status;
		waitpid(pid, &status, 0);
		char got[64] = {0};
		ssize_t r = read(fds[0], got, sizeof got - 1);
		close(fds[0]);
		printf("%s", r > 0 ? got : "(nothing)\n");
		printf("exit status %d\n", WIFEXITED(status) ? WEXITSTATUS(status) : -1);
	}
	fflush(stdout);
	SSC_MARK(0x55667788);
	return 0;
}

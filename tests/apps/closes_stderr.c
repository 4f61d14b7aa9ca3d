/* Closes fd 2 and puts something else there: the runtime's own messages (the -icount
 * report) must still reach the original stderr, and the app's writes must not. */
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>

int main(void)
{
	close(2);
	int fd = open("/dev/null", O_WRONLY); /* becomes fd 2 */
	dprintf(fd, "this goes to /dev/null\n");
	for (int i = 3; i < 1024; i++)
		close(i); /* a daemon-style sweep must not close the runtime's descriptor */
	printf("stdout still works, new fd %d\n", fd);
	return 0;
}

/* Output that reaches stdout and stderr by every route, and output that does not: a replay
 * must echo exactly what reached them. Argument: a scratch directory. */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/sendfile.h>
#include <sys/uio.h>
#include <unistd.h>

static void say(int fd, const char *s)
{
	if (write(fd, s, strlen(s)) < 0)
		_exit(1);
}

/* A file holding `text`, open for reading at its start. */
static int file_with(const char *dir, const char *name, const char *text)
{
	char path[4096];
	snprintf(path, sizeof path, "%s/%s", dir, name);
	int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
	say(fd, text);
	lseek(fd, 0, SEEK_SET);
	return fd;
}

int main(int argc, char **argv)
{
	const char *dir = argc > 1 ? argv[1] : ".";
	say(1, "1 plain write\n");
	int copy = dup(1);
	say(copy, "2 through dup\n");
	int high = fcntl(1, F_DUPFD_CLOEXEC, 50);
	say(high, "3 through F_DUPFD\n");
	struct iovec iov[2] = {{"4 through ", 10}, {"writev\n", 7}};
	if (writev(1, iov, 2) < 0)
		return 1;
	say(2, "5 to stderr\n");

	/* redirected away: not shown */
	int saved = dup(1);
	int file = file_with(dir, "redirected", "");
	dup2(file, 1);
	say(1, "X went to a file\n");
	dup2(saved, 1);
	close(copy);
	say(1, "6 stdout restored\n");

	/* through a pipe and back */
	int p[2];
	if (pipe(p))
		return 1;
	say(p[1], "7 through a pipe\n");
	char buf[64] = {0};
	if (read(p[0], buf, sizeof buf - 1) <= 0)
		return 1;
	say(1, buf);

	/* copies inside the kernel */
	int src = file_with(dir, "sendfile", "8 by sendfile\n");
	if (sendfile(1, src, NULL, 100) != 14)
		say(1, "8 by sendfile (not supported here)\n");
	off_t off = 0;
	int src2 = file_with(dir, "offset", "XX9 by sendfile at an offset\n");
	off = 2;
	if (sendfile(high, src2, &off, 100) != 27 || off != 29)
		say(1, "9 by sendfile at an offset (failed)\n");
	say(p[1], "10 by splice from a pipe\n");
	if (splice(p[0], NULL, 1, NULL, 25, 0) != 25)
		say(1, "10 by splice (not supported here)\n");
	int src3 = file_with(dir, "copy", "11 by copy_file_range\n");
	if (copy_file_range(src3, NULL, 1, NULL, 100, 0) != 22)
		say(1, "11 by copy_file_range (not to this stdout)\n");
	printf("12 by stdio\n");
	fflush(stdout);
	fprintf(stderr, "13 to stderr by stdio\n");
	return 0;
}

/* Takes descriptor numbers the way a careless program does, with output in between: dup2
 * over 3..19, close_range(3, ~0) and a close loop, then lowers its RLIMIT_NOFILE to 64 and
 * opens files until the limit says no, twice (by open and by pipe). A runtime whose own
 * descriptors sit among the app's loses them (a recording's pinball, its messages); one
 * whose descriptors count against the app's limit lets it open fewer. */
#include <fcntl.h>
#include <stdio.h>
#include <sys/resource.h>
#include <unistd.h>

static int open_until_refused(int use_pipe)
{
	int n = 0;
	for (;;) {
		int fds[2];
		if (use_pipe ? pipe(fds) : (fds[0] = open("/dev/null", O_RDONLY)) < 0)
			return n;
		n += use_pipe ? 2 : 1;
	}
}

int main(void)
{
	for (int fd = 3; fd < 20; fd++)
		if (dup2(1, fd) != fd)
			return 1;
	for (int fd = 3; fd < 20; fd++)
		dprintf(fd, "through %d\n", fd);
	if (close_range(3, ~0u, 0))
		return 2;
	for (int fd = 3; fd < 4096; fd++)
		close(fd);
	printf("dup2 over 3..19 and closing everything: done\n");
	struct rlimit rl;
	if (getrlimit(RLIMIT_NOFILE, &rl))
		return 3;
	rl.rlim_cur = 64;
	if (setrlimit(RLIMIT_NOFILE, &rl) || getrlimit(RLIMIT_NOFILE, &rl) || rl.rlim_cur != 64)
		return 4;
	printf("limit %llu: %d files open\n", (unsigned long long)rl.rlim_cur,
	       open_until_refused(0));
	close_range(3, ~0u, 0);
	printf("limit %llu: %d pipe ends open\n", (unsigned long long)rl.rlim_cur,
	       open_until_refused(1));
	close_range(3, ~0u, 0);
	fflush(stdout);
	return 0;
}

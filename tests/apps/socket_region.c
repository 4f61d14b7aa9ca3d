/* System calls that reach memory through pointers inside structures, in an SSC-marked
 * region: sendmsg reads a string in .rodata and recvmsg writes into a buffer pages away
 * from everything else the region touches. Under first-touch recording those pages are
 * withheld when the kernel needs them. What the region saw goes out with write(2), so that
 * a replay echoes the same lines. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#include "ssc_mark.h"

static char far_buffer[64 * 4096];

static void say(const char *line)
{
	size_t n = strlen(line);
	if (write(1, line, n) != (ssize_t)n)
		_exit(3);
}

int main(void)
{
	int sv[2];
	if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv))
		return 1;
	char line[256];
	SSC_MARK(0x11223344);
	static const char message[] = "hello through sendmsg and recvmsg";
	struct iovec out = {(void *)message, sizeof message};
	struct msghdr sent = {.msg_iov = &out, .msg_iovlen = 1};
	ssize_t n = sendmsg(sv[0], &sent, 0);
	snprintf(line, sizeof line, "sendmsg: %zd (%s)\n", n, n < 0 ? strerror(errno) : "ok");
	say(line);
	char *into = far_buffer + 40 * 4096 + 100;
	struct iovec in = {into, 128};
	struct msghdr received = {.msg_iov = &in, .msg_iovlen = 1};
	n = recvmsg(sv[1], &received, MSG_DONTWAIT); /* (nothing sent: EAGAIN, no hang) */
	snprintf(line, sizeof line, "recvmsg: %zd (%s): %.64s\n", n, n < 0 ? strerror(errno) : "ok",
		 n > 0 ? into : "");
	say(line);
	SSC_MARK(0x55667788);
	return 0;
}

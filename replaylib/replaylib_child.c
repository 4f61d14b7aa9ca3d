/* The replayer runs in a child process: the replay needs a process of its own (it rebuilds
 * the recorded address space and runs the app's code under the JIT). */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "replaylib_internal.h"

static const char *replayer_path(void)
{
	const char *env = getenv("PINTRACE_REPLAYER");
	return env && *env ? env : PINTRACE_REPLAYER_DEFAULT;
}

int child_start(struct child *c, const char *pinball, unsigned flags, char *err, size_t errlen)
{
	int feed[2], errp[2];
	const char *path = replayer_path();
	if (access(path, X_OK)) {
		snprintf(err, errlen, "cannot run the replayer '%s': %s (set PINTRACE_REPLAYER)",
			 path, strerror(errno));
		return -1;
	}
	if (pipe2(feed, O_CLOEXEC))
		goto fail;
	if (pipe2(errp, O_CLOEXEC)) {
		close(feed[0]);
		close(feed[1]);
		goto fail;
	}
	const char *argv[16];
	int n = 0;
	argv[n++] = path;
	argv[n++] = "-replay:echo";
	argv[n++] = "0";
	argv[n++] = "-trace";
	argv[n++] = "feed";
	argv[n++] = "-o";
	argv[n++] = "/dev/fd/3";
	if (flags & PTR_REGS)
		argv[n++] = "-trace:regs";
	if (flags & PTR_MEMORY)
		argv[n++] = "-trace:memory";
	argv[n++] = "--";
	argv[n++] = pinball;
	argv[n] = NULL;
	c->pid = fork();
	if (c->pid == 0) {
		int devnull = open("/dev/null", O_WRONLY);
		if (dup2(feed[1], 3) < 0 || dup2(errp[1], 2) < 0 || devnull < 0 ||
		    dup2(devnull, 1) < 0)
			_exit(127);
		execv(path, (char *const *)argv);
		_exit(127);
	}
	close(feed[1]);
	close(errp[1]);
	if (c->pid < 0) {
		close(feed[0]);
		close(errp[0]);
		goto fail;
	}
	c->feed = feed[0];
	c->err = errp[0];
	return 0;
fail:
	snprintf(err, errlen, "cannot start the replayer: %s", strerror(errno));
	return -1;
}

/* The child's stderr, of which the last line says how the replay ended. */
static void last_line(int fd, char *msg, size_t msglen)
{
	char buf[8192];
	size_t len = 0;
	ssize_t r;
	while ((r = read(fd, buf + len, sizeof buf - 1 - len)) > 0 || (r < 0 && errno == EINTR)) {
		if (r < 0)
			continue;
		len += (size_t)r;
		if (len == sizeof buf - 1) { /* keep the tail */
			memmove(buf, buf + len / 2, len - len / 2);
			len -= len / 2;
		}
	}
	while (len && buf[len - 1] == '\n')
		len--;
	buf[len] = '\0';
	const char *line = strrchr(buf, '\n');
	line = line ? line + 1 : buf;
	size_t n = strlen(line) < msglen - 1 ? strlen(line) : msglen - 1;
	memcpy(msg, line, n);
	msg[n] = '\0';
}

int child_end(struct child *c, bool finished, char *msg, size_t msglen)
{
	if (!finished)
		kill(c->pid, SIGTERM);
	close(c->feed);
	char line[1024] = "";
	last_line(c->err, line, sizeof line);
	close(c->err);
	int status;
	while (waitpid(c->pid, &status, 0) < 0 && errno == EINTR)
		;
	bool ok = finished && WIFEXITED(status) && WEXITSTATUS(status) == 0;
	if (msg)
		snprintf(msg, msglen, "%s",
			 line[0]     ? line
			 : !finished ? "stopped before its end"
				     : "no verdict");
	return ok ? 0 : -1;
}

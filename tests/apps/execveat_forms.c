/* The forms of execveat a program uses, each in a child: fexecve of a descriptor (with and
 * without O_CLOEXEC), of a memfd holding a copy of the program, a path relative to a
 * directory descriptor, AT_SYMLINK_NOFOLLOW on a symbolic link (ELOOP), a bad flag
 * (EINVAL); and execve of a descriptor's name (/proc/self/fd/N of an O_CLOEXEC descriptor,
 * /dev/fd/N of a memfd, a descriptor not open). Each child prints what it ran or why it
 * could not. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

static void in_child(const char *what, int dirfd, const char *path, int flags)
{
	fflush(stdout);
	pid_t pid = fork();
	if (pid == 0) {
		char *argv[] = {"echo", (char *)what, NULL};
		syscall(SYS_execveat, dirfd, path, argv, environ, flags);
		printf("%s: %s\n", what, strerror(errno));
		fflush(stdout);
		_exit(1);
	}
	int status;
	waitpid(pid, &status, 0);
}

/* execve of a descriptor by its name under /proc or /dev. */
static void execve_by_name(const char *what, const char *form, int fd)
{
	char path[64];
	snprintf(path, sizeof path, form, fd);
	in_child(what, AT_FDCWD, path, 0);
}

static int memfd_copy(const char *file)
{
	int in = open(file, O_RDONLY), out = memfd_create("copy", MFD_CLOEXEC);
	char buf[65536];
	ssize_t n;
	while ((n = read(in, buf, sizeof buf)) > 0)
		if (write(out, buf, (size_t)n) != n)
			return -1;
	close(in);
	return out;
}

int main(void)
{
	int fd = open("/bin/echo", O_RDONLY);
	in_child("fexecve", fd, "", AT_EMPTY_PATH);
	int cloexec = open("/bin/echo", O_RDONLY | O_CLOEXEC);
	in_child("fexecve of an O_CLOEXEC descriptor", cloexec, "", AT_EMPTY_PATH);
	in_child("fexecve of a memfd", memfd_copy("/bin/echo"), "", AT_EMPTY_PATH);
	int bin = open("/bin", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	in_child("relative to a directory", bin, "echo", 0);
	char link[] = "/tmp/execveat_link_XXXXXX";
	close(mkstemp(link));
	unlink(link);
	if (symlink("/bin/echo", link) == 0) {
		in_child("a symbolic link, not followed", AT_FDCWD, link, AT_SYMLINK_NOFOLLOW);
		in_child("a symbolic link, followed", AT_FDCWD, link, 0);
		unlink(link);
	}
	in_child("a bad flag", AT_FDCWD, "/bin/echo", 0x4);
	in_child("an empty path without AT_EMPTY_PATH", fd, "", 0);
	execve_by_name("/proc/self/fd of an O_CLOEXEC descriptor", "/proc/self/fd/%d", cloexec);
	execve_by_name("/dev/fd of a memfd", "/dev/fd/%d", memfd_copy("/bin/echo"));
	execve_by_name("/proc/self/fd of a descriptor not open", "/proc/self/fd/%d", 987);
	return 0;
}

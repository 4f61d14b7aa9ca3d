/* What a program finds in its descriptor directories (issue 19 item 28): /proc/self/fd,
 * /proc/<pid>/fd, /proc/thread-self/fd, /proc/self/task/<tid>/fd and /proc/self/fdinfo list
 * its own descriptors only (a runtime's stay hidden), through readdir and through raw
 * getdents64 and getdents with a buffer of one entry. */
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

static int by_number(const void *a, const void *b)
{
	return atoi(*(char *const *)a) - atoi(*(char *const *)b);
}

/* The entries of path (without . and ..), sorted by number, on one line. */
static void list_readdir(const char *label, const char *path)
{
	DIR *d = opendir(path);
	if (!d) {
		printf("%-24s cannot open\n", label);
		return;
	}
	char *names[256];
	int n = 0;
	for (struct dirent *e; (e = readdir(d)) && n < 256;)
		if (e->d_name[0] != '.')
			names[n++] = strdup(e->d_name);
	closedir(d);
	qsort(names, (size_t)n, sizeof names[0], by_number);
	printf("%-24s", label);
	for (int i = 0; i < n; i++) {
		printf(" %s", names[i]);
		free(names[i]);
	}
	printf("\n");
}

/* The same through raw getdents64 (nr) or getdents, a buffer of one entry at a time. */
static void list_raw(const char *label, long nr)
{
	int fd = open("/proc/self/fd", O_RDONLY | O_DIRECTORY);
	char buf[32]; /* room for one entry of a name of up to 5 characters */
	int entries = 0;
	long r;
	while ((r = syscall(nr, fd, buf, sizeof buf)) > 0)
		for (long at = 0; at < r; at += *(unsigned short *)(buf + at + 16))
			entries++;
	close(fd);
	printf("%-24s %d entries, last result %ld\n", label, entries, r);
}

int main(void)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	char path[64];
	list_readdir("/proc/self/fd", "/proc/self/fd");
	snprintf(path, sizeof path, "/proc/%d/fd", (int)getpid());
	list_readdir("/proc/<pid>/fd", path);
	list_readdir("/proc/thread-self/fd", "/proc/thread-self/fd");
	snprintf(path, sizeof path, "/proc/self/task/%d/fd", (int)getpid());
	list_readdir("/proc/self/task/<tid>/fd", path);
	list_readdir("/proc/self/fdinfo", "/proc/self/fdinfo");
	list_raw("getdents64, one by one", SYS_getdents64);
	list_raw("getdents, one by one", SYS_getdents);
	return 0;
}

/* Prints what a program can learn about itself: under the logger it must read its own
 * identity, never the logger's. Every line is identical for a native run. */
#include <elf.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/prctl.h>
#include <unistd.h>

extern char _start[];

static size_t slurp(const char *path, char *buf, size_t cap)
{
	int fd = open(path, O_RDONLY);
	if (fd < 0)
		return 0;
	size_t n = 0;
	ssize_t r;
	while (n < cap && (r = read(fd, buf + n, cap - n)) > 0)
		n += (size_t)r;
	close(fd);
	return n;
}

int main(int argc, char **argv)
{
	char buf[4096];
	ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
	buf[n > 0 ? n : 0] = '\0';
	printf("exe: %s\n", buf);
	char pidpath[64];
	snprintf(pidpath, sizeof pidpath, "/proc/%d/exe", (int)getpid());
	char buf2[4096];
	n = readlink(pidpath, buf2, sizeof buf2 - 1);
	buf2[n > 0 ? n : 0] = '\0';
	printf("exe by pid matches: %d\n", strcmp(buf, buf2) == 0);

	size_t len = slurp("/proc/self/cmdline", buf, sizeof buf);
	printf("cmdline:");
	for (size_t i = 0; i < len; i += strlen(buf + i) + 1)
		printf(" [%s]", buf + i);
	printf(" (argc %d)\n", argc);

	printf("execfn: %s\n", (const char *)getauxval(AT_EXECFN));
	printf("platform: %s pagesz %lu\n", (const char *)getauxval(AT_PLATFORM),
	       getauxval(AT_PAGESZ));
	printf("entry is _start: %d\n", getauxval(AT_ENTRY) == (unsigned long)_start);
	printf("random present: %d\n", getauxval(AT_RANDOM) != 0);

	Elf64_auxv_t aux[64];
	len = slurp("/proc/self/auxv", (char *)aux, sizeof aux);
	int consistent = len > 0;
	for (size_t i = 0; i < len / sizeof aux[0] && aux[i].a_type != AT_NULL; i++)
		if (aux[i].a_type == AT_EXECFN || aux[i].a_type == AT_ENTRY ||
		    aux[i].a_type == AT_PHDR)
			consistent &= aux[i].a_un.a_val == getauxval(aux[i].a_type);
	printf("auxv file consistent: %d\n", consistent);

	char comm[32] = {0};
	len = slurp("/proc/self/comm", comm, sizeof comm - 1);
	printf("comm: %s", comm);
	char name[17] = {0};
	prctl(PR_GET_NAME, name);
	printf("prctl name: %s\n", name);
	(void)argv;
	return 0;
}

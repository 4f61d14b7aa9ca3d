/* System calls whose buffers are not plain data: read() into a page that holds code the app
 * ran (the runtime keeps such pages write-protected to see changes: the kernel's write must
 * still land, and the new code must run), and reads into pages the app made read-only or
 * inaccessible (EFAULT, with the data left in the pipe). */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static int run(unsigned char *code)
{
	return ((int (*)(void))code)();
}

static void show(const char *what, long r)
{
	printf("%s: %ld %s\n", what, r, r < 0 ? strerror(errno) : "");
}

int main(void)
{
	unsigned char *p = mmap(NULL, 3 * 4096, PROT_READ | PROT_WRITE | PROT_EXEC,
				MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	static const unsigned char seven[] = {0xb8, 7, 0, 0, 0, 0xc3}; /* mov $7,%eax; ret */
	static const unsigned char nine[] = {0xb8, 9, 0, 0, 0, 0xc3};
	memcpy(p, seven, sizeof seven);
	printf("the code returns %d\n", run(p));
	int fds[2];
	if (pipe(fds))
		return 1;
	write(fds[1], "data", 4);
	show("read next to the code", read(fds[0], p + 100, 4));
	printf("the code returns %d, the data %.4s\n", run(p), p + 100);
	write(fds[1], nine, sizeof nine);
	show("read new code over the code", read(fds[0], p, sizeof nine));
	printf("the code returns %d\n", run(p));

	write(fds[1], "more", 4);
	mprotect(p + 4096, 4096, PROT_READ);
	show("read into a read-only page", read(fds[0], p + 4096, 4));
	mprotect(p + 8192, 4096, PROT_NONE);
	show("read into an inaccessible page", read(fds[0], p + 8192, 4));
	char rest[8] = {0};
	show("the data stayed in the pipe", read(fds[0], rest, 4));
	printf("%s\n", rest);
	return 0;
}

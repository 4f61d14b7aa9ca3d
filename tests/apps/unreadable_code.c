/* Calls into code the translator cannot read, each fault handled and reported as the
 * kernel gives it (signal, si_code, address): an unmapped page, a PROT_NONE page, a page of
 * a file mapping past the file's end (SIGBUS), an instruction that runs on into an
 * unmapped page, a page of code made PROT_NONE after it ran and then readable again, and a
 * page mapped only after a call into it faulted. Code in pages mapped PROT_EXEC alone
 * (execute-only where the CPU has protection keys) or PROT_WRITE | PROT_EXEC runs.
 * With argument "late", only the file's two calls, after region_starts_here (the file
 * mapped before it: a region started there holds the file's pages from its start). With
 * "truncated": a file of two pages of code, a function of its second page called, the file
 * cut to one page, then another function of that page called (SIGBUS: the translator,
 * which read that page before, must not fault in its place). */
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static sigjmp_buf back;
static volatile uintptr_t expected;

static void on_fault(int sig, siginfo_t *info, void *ctx)
{
	(void)ctx;
	printf("  signal %s, code %d, address: the target + %ld\n",
	       sig == SIGSEGV ? "SIGSEGV" : "SIGBUS", info->si_code,
	       (long)((uintptr_t)info->si_addr - expected));
	siglongjmp(back, 1);
}

/* Calls the code at p (it returns 42 when it runs). */
static void call(const char *what, void *p)
{
	printf("%s\n", what);
	expected = (uintptr_t)p;
	if (sigsetjmp(back, 1))
		return;
	int r = ((int (*)(void))p)();
	printf("  returned %d\n", r);
}

static const unsigned char return_42[] = {0xb8, 42, 0, 0, 0, 0xc3}; /* mov $42,%eax; ret */

static void *page_of_code(int prot)
{
	void *p = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		exit(2);
	memcpy(p, return_42, sizeof return_42);
	mprotect(p, 4096, prot);
	return p;
}

/* A file of `len` bytes (deleted), mapped executable over two pages; its descriptor in *fd. */
static char *map_code_file(const void *bytes, size_t len, int flags, int *fd)
{
	char name[] = "/tmp/unreadable_code.XXXXXX";
	*fd = mkstemp(name);
	if (*fd < 0 || write(*fd, bytes, len) != (ssize_t)len)
		exit(2);
	unlink(name);
	char *file = mmap(NULL, 2 * 4096, PROT_READ | PROT_EXEC, flags, *fd, 0);
	if (file == MAP_FAILED)
		exit(2);
	return file;
}

/* A file of one page's worth of code, mapped over two pages. */
static char *map_file(void)
{
	int fd;
	return map_code_file(return_42, sizeof return_42, MAP_PRIVATE, &fd);
}

/* Two pages of a file, a function at the second's start and one 64 bytes further. */
static void truncated(void)
{
	static unsigned char pages[2 * 4096];
	memcpy(pages + 4096, return_42, sizeof return_42);
	memcpy(pages + 4096 + 64, return_42, sizeof return_42);
	int fd;
	char *file = map_code_file(pages, sizeof pages, MAP_SHARED, &fd);
	call("a function of the file's second page", file + 4096);
	if (ftruncate(fd, 4096))
		exit(2);
	call("another function of that page, the file cut to one page", file + 4096 + 64);
}

__attribute__((noinline)) void region_starts_here(void)
{
	__asm__ volatile("");
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IONBF, 0);
	struct sigaction sa = {.sa_sigaction = on_fault, .sa_flags = SA_SIGINFO};
	sigaction(SIGSEGV, &sa, NULL);
	sigaction(SIGBUS, &sa, NULL);
	if (argc > 1 && !strcmp(argv[1], "truncated")) {
		truncated();
		return 0;
	}
	char *file = map_file();
	if (argc > 1 && !strcmp(argv[1], "late")) {
		region_starts_here();
		call("file page", file);
		call("file page past the end of the file", file + 4096);
		return 0;
	}

	void *gone = page_of_code(PROT_READ | PROT_EXEC);
	munmap(gone, 4096);
	call("unmapped page", gone);

	call("PROT_NONE page", page_of_code(PROT_NONE));
	call("PROT_EXEC page", page_of_code(PROT_EXEC));
	call("PROT_WRITE | PROT_EXEC page", page_of_code(PROT_WRITE | PROT_EXEC));

	call("file page", file);
	call("file page past the end of the file", file + 4096);

	char *two =
	    mmap(NULL, 2 * 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (two == MAP_FAILED)
		return 2;
	munmap(two + 4096, 4096);
	memcpy(two + 4096 - 2, return_42, 2); /* the mov's first two bytes */
	mprotect(two, 4096, PROT_READ | PROT_EXEC);
	call("an instruction cut by an unmapped page", two + 4096 - 2);

	void *again = page_of_code(PROT_READ | PROT_EXEC);
	call("code page", again);
	mprotect(again, 4096, PROT_NONE);
	call("the same page, PROT_NONE", again);
	mprotect(again, 4096, PROT_READ | PROT_EXEC);
	call("the same page, readable again", again);

	void *later = page_of_code(PROT_READ | PROT_EXEC);
	munmap(later, 4096);
	call("a page not mapped yet", later);
	if (mmap(later, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1,
		 0) != later)
		return 2;
	memcpy(later, return_42, sizeof return_42);
	mprotect(later, 4096, PROT_READ | PROT_EXEC);
	call("the page, mapped now", later);
	return 0;
}

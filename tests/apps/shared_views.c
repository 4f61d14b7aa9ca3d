/* Shared and advised memory as the kernel keeps it (issue 19 item 25). One scenario per run,
 * in a scratch file of the current directory:
 *   two_views    two MAP_SHARED views of one file: a write through one is read through the
 *                other, after both were read
 *   file_write   a shared view sees what write(2) and pwrite(2) put in the file later
 *   grows        a view longer than its file: the file grows (ftruncate, then pwrite), and
 *                the pages past the old end show what the file holds
 *   mremap       a shared view grown by mremap shows the file there; a private anonymous
 *                one grown shows zeros; moved, it keeps its contents
 *   dontneed     MADV_DONTNEED zeroes private anonymous pages and takes private file pages
 *                back to the file; MADV_REMOVE punches a hole in a shared file view
 *   tail         the bytes after the file's end on its last mapped page read as zero
 * Each prints what it read, so that a run and its replay compare. A region may start at SSC
 * mark 0x11223344 (two_views, file_write), once the views exist. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "ssc_mark.h"

enum { PAGE = 4096 };

static int scratch_file(size_t size)
{
	char name[] = "shared_views.XXXXXX";
	int fd = mkstemp(name);
	if (fd < 0 || unlink(name) || ftruncate(fd, (off_t)size)) {
		perror("scratch file");
		exit(1);
	}
	return fd;
}

static char *map(int fd, size_t len, int flags, off_t off)
{
	char *p = mmap(NULL, len, PROT_READ | PROT_WRITE, flags, fd, off);
	if (p == MAP_FAILED) {
		perror("mmap");
		exit(1);
	}
	return p;
}

static void two_views(void)
{
	int fd = scratch_file(2 * PAGE);
	char *a = map(fd, 2 * PAGE, MAP_SHARED, 0), *b = map(fd, 2 * PAGE, MAP_SHARED, 0);
	char *second = map(fd, PAGE, MAP_SHARED, PAGE); /* the file's second page alone */
	SSC_MARK(0x11223344);
	fflush(stdout); /* the region starts at the end of the mark's block */
	printf("before: %d %d %d %d %d %d\n", a[0], b[0], a[PAGE + 1], b[PAGE + 1], second[1],
	       second[2]);
	a[0] = 'A';
	b[PAGE + 1] = 'B';
	second[2] = 'C';
	printf("after: %c %c %c %c %c %c\n", a[0], b[0], a[PAGE + 1], b[PAGE + 1], second[1],
	       a[PAGE + 2]);
	char back[3];
	pread(fd, back, 3, PAGE);
	printf("the file holds %d %c %c at its second page\n", back[0], back[1], back[2]);
}

static void file_write(void)
{
	int fd = scratch_file(PAGE);
	char *a = map(fd, PAGE, MAP_SHARED, 0);
	SSC_MARK(0x11223344);
	fflush(stdout); /* the region starts at the end of the mark's block */
	printf("before: %d %d\n", a[0], a[100]);
	pwrite(fd, "pw", 2, 100);
	lseek(fd, 0, SEEK_SET);
	write(fd, "w", 1);
	printf("after: %c %c%c\n", a[0], a[100], a[101]);
}

static void grows(void)
{
	int fd = scratch_file(PAGE);
	char *a = map(fd, 3 * PAGE, MAP_SHARED, 0);
	a[0] = 'x';
	ftruncate(fd, 2 * PAGE);
	printf("grown by ftruncate: %d\n", a[PAGE + 5]);
	a[PAGE + 5] = 'y';
	pwrite(fd, "zz", 2, 2 * PAGE + 7); /* the file grows by the write */
	printf("grown by pwrite: %c %c%c\n", a[PAGE + 5], a[2 * PAGE + 7], a[2 * PAGE + 8]);
}

static void remaps(void)
{
	int fd = scratch_file(3 * PAGE);
	pwrite(fd, "third", 5, 2 * PAGE);
	char *a = map(fd, PAGE, MAP_SHARED, 0);
	a[0] = 's';
	char *g = mremap(a, PAGE, 3 * PAGE, MREMAP_MAYMOVE);
	printf("shared grown: %c %s\n", g[0], g + 2 * PAGE);
	char *p = mmap(NULL, PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	memset(p, 'p', PAGE);
	char *q = mremap(p, PAGE, 2 * PAGE, MREMAP_MAYMOVE);
	printf("private grown: %c %d\n", q[10], q[PAGE + 10]);
	char *h = mmap(NULL, 4 * PAGE, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	char *moved = mremap(q, 2 * PAGE, 2 * PAGE, MREMAP_MAYMOVE | MREMAP_FIXED, h + PAGE);
	printf("moved: %c %d\n", moved[10], moved[PAGE + 10]);
}

static void dontneed(void)
{
	char *p = mmap(NULL, 2 * PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	memset(p, 'a', 2 * PAGE);
	madvise(p, PAGE, MADV_DONTNEED);
	printf("anonymous: %d %c\n", p[10], p[PAGE + 10]);
	int fd = scratch_file(PAGE);
	pwrite(fd, "file", 4, 0);
	char *f = map(fd, PAGE, MAP_PRIVATE, 0);
	memcpy(f, "mine", 4);
	printf("private file before: %.4s\n", f);
	madvise(f, PAGE, MADV_DONTNEED);
	printf("private file after: %.4s\n", f);
	char *s = map(fd, PAGE, MAP_SHARED, 0);
	printf("shared before MADV_REMOVE: %.4s\n", s);
	int r = madvise(s, PAGE, MADV_REMOVE);
	printf("shared after MADV_REMOVE (%d): %d\n", r, s[0]);
}

static void tail(void)
{
	int fd = scratch_file(100);
	pwrite(fd, "end", 3, 97);
	char *a = map(fd, PAGE, MAP_SHARED, 0);
	printf("last bytes %.3s, after the end %d %d\n", a + 97, a[100], a[PAGE - 1]);
	a[200] = 'q';
	printf("file size still %ld\n", (long)lseek(fd, 0, SEEK_END));
}

int main(int argc, char **argv)
{
	const char *what = argc > 1 ? argv[1] : "";
	if (!strcmp(what, "two_views"))
		two_views();
	else if (!strcmp(what, "file_write"))
		file_write();
	else if (!strcmp(what, "grows"))
		grows();
	else if (!strcmp(what, "mremap"))
		remaps();
	else if (!strcmp(what, "dontneed"))
		dontneed();
	else if (!strcmp(what, "tail"))
		tail();
	else {
		fprintf(stderr, "usage: shared_views SCENARIO\n");
		return 2;
	}
	return 0;
}

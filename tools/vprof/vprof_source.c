#include "vprof_source.h"

#include <elf.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* The address the file's own tables use for its byte at `offset` (a PT_LOAD segment's
 * mapping), or 0 when no segment holds it. */
static uint64_t file_vaddr(int fd, uint64_t offset)
{
	Elf64_Ehdr eh;
	if (pread(fd, &eh, sizeof eh, 0) != sizeof eh || memcmp(eh.e_ident, ELFMAG, SELFMAG) ||
	    eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_phentsize != sizeof(Elf64_Phdr))
		return 0;
	for (unsigned i = 0; i < eh.e_phnum; i++) {
		Elf64_Phdr ph;
		if (pread(fd, &ph, sizeof ph, (off_t)(eh.e_phoff + i * sizeof ph)) != sizeof ph)
			return 0;
		if (ph.p_type == PT_LOAD && offset >= ph.p_offset &&
		    offset < ph.p_offset + ph.p_filesz)
			return offset - ph.p_offset + ph.p_vaddr;
	}
	return 0;
}

/* addr2line's "??" for an unknown function. */
static char *function_of(const char *text)
{
	return strncmp(text, "??", 2) ? strdup(text) : NULL;
}

/* "file.c:12" from addr2line's "/path/file.c:12 (discriminator 3)"; "??:0" and "file.c:?"
 * are unknown. */
static char *line_of(char *text)
{
	text[strcspn(text, " ")] = '\0';
	size_t n = strlen(text);
	if (!strncmp(text, "??", 2) || n < 2 || !strcmp(text + n - 2, ":0") ||
	    !strcmp(text + n - 2, ":?"))
		return NULL;
	const char *base = strrchr(text, '/');
	return strdup(base ? base + 1 : text);
}

/* Runs `addr2line -f -C -e path` on the addresses in the file `in`; fills where[k] for
 * each of the n (two lines each: the function, then file:line). */
static void addr2line(const char *path, int in, size_t n, const size_t *index,
		      struct vp_where *where)
{
	int out[2];
	if (pipe(out))
		return;
	pid_t pid = fork();
	if (pid == 0) {
		dup2(in, 0);
		dup2(out[1], 1);
		int devnull = open("/dev/null", O_WRONLY);
		if (devnull >= 0)
			dup2(devnull, 2);
		execlp("addr2line", "addr2line", "-f", "-C", "-e", path, (char *)NULL);
		_exit(127);
	}
	close(out[1]);
	FILE *f = pid > 0 ? fdopen(out[0], "r") : NULL;
	char *text = NULL;
	size_t cap = 0;
	for (size_t k = 0; f && k < n; k++) {
		ssize_t len = getline(&text, &cap, f);
		if (len <= 0)
			break;
		text[strcspn(text, "\n")] = '\0';
		where[index[k]].function = function_of(text);
		if (getline(&text, &cap, f) <= 0)
			break;
		text[strcspn(text, "\n")] = '\0';
		where[index[k]].line = line_of(text);
	}
	free(text);
	if (f)
		fclose(f);
	else
		close(out[0]);
	if (pid > 0)
		waitpid(pid, NULL, 0);
}

/* The pcs inside image m, through one addr2line run. */
static void lookup_image(const struct vp_image_map *m, const uint64_t *pcs, size_t n,
			 struct vp_where *where)
{
	int fd = open(m->path, O_RDONLY | O_CLOEXEC);
	FILE *list = tmpfile();
	size_t *index = malloc(n * sizeof *index), count = 0;
	if (fd >= 0 && list && index)
		for (size_t i = 0; i < n; i++) {
			if (pcs[i] < m->start || pcs[i] >= m->end)
				continue;
			uint64_t vaddr = file_vaddr(fd, pcs[i] - m->start + m->offset);
			if (!vaddr)
				continue;
			fprintf(list, "0x%" PRIx64 "\n", vaddr);
			index[count++] = i;
		}
	if (count && !fflush(list) && !fseek(list, 0, SEEK_SET))
		addr2line(m->path, fileno(list), count, index, where);
	if (fd >= 0)
		close(fd);
	if (list)
		fclose(list);
	free(index);
}

void vp_source_lookup(const struct vp_profile *p, const uint64_t *pcs, size_t n,
		      struct vp_where *where)
{
	memset(where, 0, n * sizeof *where);
	for (size_t i = 0; i < p->nimages; i++)
		lookup_image(&p->images[i], pcs, n, where);
}

void vp_where_free(struct vp_where *where, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(where[i].function);
		free(where[i].line);
	}
}

#include "elf_map.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

enum { PAGE = 4096, MAX_PHDRS = 64 };

static uint64_t page_down(uint64_t a)
{
	return a & ~(uint64_t)(PAGE - 1);
}
static uint64_t page_up(uint64_t a)
{
	return (a + PAGE - 1) & ~(uint64_t)(PAGE - 1);
}

static int fail(char *err, size_t errlen, const char *path, const char *why)
{
	snprintf(err, errlen, "cannot load '%s': %s", path, why);
	return -1;
}

static int prot_of(uint32_t flags, bool exec_prot)
{
	int prot = 0;
	if (flags & PF_R)
		prot |= PROT_READ;
	if (flags & PF_W)
		prot |= PROT_WRITE;
	if ((flags & PF_X) && exec_prot)
		prot |= PROT_EXEC;
	return prot;
}

static int map_segment(int fd, const Elf64_Phdr *ph, uint64_t bias, bool exec_prot)
{
	uint64_t start = bias + ph->p_vaddr;
	uint64_t map_start = page_down(start);
	uint64_t file_end = start + ph->p_filesz;
	uint64_t mem_end = start + ph->p_memsz;
	int prot = prot_of(ph->p_flags, exec_prot);
	bool has_bss = ph->p_memsz > ph->p_filesz;

	if (ph->p_filesz > 0) {
		/* Writable while the partial page after the file data is zeroed. */
		int first = has_bss ? prot | PROT_WRITE : prot;
		void *m =
		    mmap((void *)map_start, page_up(file_end) - map_start, first,
			 MAP_PRIVATE | MAP_FIXED, fd, (off_t)(ph->p_offset - (start - map_start)));
		if (m == MAP_FAILED)
			return -1;
		if (has_bss && page_up(file_end) > file_end)
			memset((void *)file_end, 0, page_up(file_end) - file_end);
		if (first != prot &&
		    mprotect((void *)map_start, page_up(file_end) - map_start, prot))
			return -1;
	}
	uint64_t anon_start = ph->p_filesz > 0 ? page_up(file_end) : map_start;
	if (page_up(mem_end) > anon_start) {
		void *m = mmap((void *)anon_start, page_up(mem_end) - anon_start, prot,
			       MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
		if (m == MAP_FAILED)
			return -1;
	}
	return 0;
}

int elf_map(const char *path, bool exec_prot, struct elf_image *img, char *err, size_t errlen)
{
	memset(img, 0, sizeof *img);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return fail(err, errlen, path, strerror(errno));
	Elf64_Ehdr eh;
	Elf64_Phdr ph[MAX_PHDRS];
	int rc = -1;
	if (pread(fd, &eh, sizeof eh, 0) != (ssize_t)sizeof eh ||
	    memcmp(eh.e_ident, ELFMAG, SELFMAG) || eh.e_ident[EI_CLASS] != ELFCLASS64 ||
	    eh.e_machine != EM_X86_64) {
		fail(err, errlen, path, "not an x86-64 ELF file");
		goto out;
	}
	if (eh.e_phentsize != sizeof(Elf64_Phdr) || eh.e_phnum == 0 || eh.e_phnum > MAX_PHDRS ||
	    pread(fd, ph, eh.e_phnum * sizeof(Elf64_Phdr), (off_t)eh.e_phoff) !=
		(ssize_t)(eh.e_phnum * sizeof(Elf64_Phdr))) {
		fail(err, errlen, path, "bad program headers");
		goto out;
	}

	uint64_t lo = UINT64_MAX, hi = 0;
	for (int i = 0; i < eh.e_phnum; i++) {
		if (ph[i].p_type == PT_LOAD) {
			if (page_down(ph[i].p_vaddr) < lo)
				lo = page_down(ph[i].p_vaddr);
			if (page_up(ph[i].p_vaddr + ph[i].p_memsz) > hi)
				hi = page_up(ph[i].p_vaddr + ph[i].p_memsz);
		} else if (ph[i].p_type == PT_INTERP) {
			size_t n = ph[i].p_filesz < sizeof img->interp ? ph[i].p_filesz
								       : sizeof img->interp - 1;
			if (pread(fd, img->interp, n, (off_t)ph[i].p_offset) != (ssize_t)n) {
				fail(err, errlen, path, "cannot read PT_INTERP");
				goto out;
			}
			img->interp[n] = '\0';
		}
	}
	if (hi <= lo) {
		fail(err, errlen, path, "no loadable segments");
		goto out;
	}

	/* Reserve the whole span first, so segments land together and nothing else of ours
	 * sits in between; a fixed-address program must find its range free. */
	void *span;
	if (eh.e_type == ET_DYN) {
		span = mmap(NULL, hi - lo, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		img->bias = (uint64_t)span - lo;
	} else {
		span = mmap((void *)lo, hi - lo, PROT_NONE,
			    MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
		if (span != MAP_FAILED && (uint64_t)span != lo) {
			munmap(span, hi - lo);
			span = MAP_FAILED;
		}
	}
	if (span == MAP_FAILED) {
		char why[128];
		snprintf(why, sizeof why, "its address range 0x%lx-0x%lx is not free", lo, hi);
		fail(err, errlen, path, why);
		goto out;
	}

	for (int i = 0; i < eh.e_phnum; i++) {
		if (ph[i].p_type != PT_LOAD)
			continue;
		if (map_segment(fd, &ph[i], img->bias, exec_prot)) {
			fail(err, errlen, path, strerror(errno));
			goto out;
		}
		if (img->segment_count < ELF_MAX_SEGMENTS) {
			struct elf_segment *s = &img->segments[img->segment_count++];
			s->start = page_down(img->bias + ph[i].p_vaddr);
			s->end = page_up(img->bias + ph[i].p_vaddr + ph[i].p_memsz);
			s->offset = ph[i].p_offset - (img->bias + ph[i].p_vaddr - s->start);
			s->prot = (uint32_t)prot_of(ph[i].p_flags, true);
		}
	}
	img->entry = img->bias + eh.e_entry;
	img->phnum = eh.e_phnum;
	img->end = img->bias + hi;
	for (int i = 0; i < eh.e_phnum; i++) {
		if (ph[i].p_type == PT_PHDR)
			img->phdr = img->bias + ph[i].p_vaddr;
	}
	for (int i = 0; !img->phdr && i < eh.e_phnum; i++) {
		if (ph[i].p_type == PT_LOAD && ph[i].p_offset <= eh.e_phoff &&
		    eh.e_phoff < ph[i].p_offset + ph[i].p_filesz)
			img->phdr = img->bias + ph[i].p_vaddr + (eh.e_phoff - ph[i].p_offset);
	}
	rc = 0;
out:
	close(fd);
	return rc;
}

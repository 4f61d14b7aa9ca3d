#include "elf_map.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

enum { PAGE = 4096, MAX_PHDRS = 64 };

/* The end of the user address space with 4-level page tables: no program is linked above. */
static const uint64_t USER_TOP = (uint64_t)1 << 47;

/* The file being loaded and where its problems are reported. */
struct elf_file {
	int fd;
	uint64_t size;
	char *err;
	size_t errlen;
};

static uint64_t page_down(uint64_t a)
{
	return a & ~(uint64_t)(PAGE - 1);
}
static uint64_t page_up(uint64_t a)
{
	return (a + PAGE - 1) & ~(uint64_t)(PAGE - 1);
}

static int fail(const struct elf_file *f, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static int fail(const struct elf_file *f, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(f->err, f->errlen, fmt, ap);
	va_end(ap);
	return -1;
}

/* Whether bytes [off, off + len) are inside the file (no overflow for any values). */
static bool in_file(const struct elf_file *f, uint64_t off, uint64_t len)
{
	return off <= f->size && len <= f->size - off;
}

/* 0 when [off, off + len) is inside the file, else -1 saying which structure is not. */
static int check_range(const struct elf_file *f, const char *what, uint64_t off, uint64_t len)
{
	if (in_file(f, off, len))
		return 0;
	return fail(f,
		    "truncated ELF file: %s lies past the end of the file (offset %lu, %lu bytes, "
		    "in a file of %lu bytes)",
		    what, off, len, f->size);
}

const char *elf_header_problem(const void *head, size_t len)
{
	Elf64_Ehdr eh = {0}; /* a copy: `head` may be any byte buffer, unaligned */
	memcpy(&eh, head, len < sizeof eh ? len : sizeof eh);
	if (len < SELFMAG || memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0)
		return "not an ELF file";
	if (len <= EI_CLASS)
		return "truncated ELF file (shorter than its 64-byte header)";
	if (eh.e_ident[EI_CLASS] != ELFCLASS64)
		return "32-bit ELF programs are not supported";
	if (len < sizeof eh)
		return "truncated ELF file (shorter than its 64-byte header)";
	if (eh.e_machine != EM_X86_64)
		return "not an x86-64 program";
	if (eh.e_type != ET_EXEC && eh.e_type != ET_DYN)
		return "not an executable ELF file";
	return NULL;
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

/* The ELF header and the program headers, each checked against the file's size. */
static int read_headers(struct elf_file *f, Elf64_Ehdr *eh, Elf64_Phdr *ph)
{
	struct stat st;
	if (fstat(f->fd, &st))
		return fail(f, "%s", strerror(errno));
	/* The kernel runs regular files only; a FIFO or a device could block or never end. */
	if (!S_ISREG(st.st_mode))
		return fail(f, "not a regular file");
	f->size = (uint64_t)st.st_size;
	size_t want = f->size < sizeof *eh ? (size_t)f->size : sizeof *eh;
	if (pread(f->fd, eh, want, 0) != (ssize_t)want)
		return fail(f, "cannot read its ELF header");
	const char *problem = elf_header_problem(eh, want);
	if (problem)
		return fail(f, "%s", problem);
	if (eh->e_phentsize != sizeof(Elf64_Phdr))
		return fail(f, "bad program header size %u (expected %zu)", eh->e_phentsize,
			    sizeof(Elf64_Phdr));
	if (eh->e_phnum == 0 || eh->e_phnum > MAX_PHDRS)
		return fail(f, "%u program headers (expected 1 to %d)", eh->e_phnum, MAX_PHDRS);
	size_t bytes = eh->e_phnum * sizeof(Elf64_Phdr);
	if (check_range(f, "the program header table", eh->e_phoff, bytes))
		return -1;
	if (pread(f->fd, ph, bytes, (off_t)eh->e_phoff) != (ssize_t)bytes)
		return fail(f, "cannot read its program headers");
	return 0;
}

/* A PT_LOAD segment the kernel would map: file bytes inside the file, offset and address
 * congruent modulo the page size, and all of it in the user address space. */
static int check_load(const struct elf_file *f, int i, const Elf64_Phdr *p)
{
	char what[64];
	snprintf(what, sizeof what, "segment %d (PT_LOAD)", i);
	if (check_range(f, what, p->p_offset, p->p_filesz))
		return -1;
	if (p->p_filesz > p->p_memsz)
		return fail(f, "%s holds more bytes in the file than in memory", what);
	if ((p->p_offset - p->p_vaddr) % PAGE)
		return fail(f, "%s: its file offset and address differ modulo the page size", what);
	if (p->p_vaddr >= USER_TOP || p->p_memsz > USER_TOP - p->p_vaddr)
		return fail(f, "%s lies outside the user address space", what);
	return 0;
}

/* PT_INTERP as the kernel takes it: 2 to PATH_MAX bytes in the file, the last one a NUL. */
static int read_interp(const struct elf_file *f, const Elf64_Phdr *p, struct elf_image *img)
{
	const char *what = "the interpreter path (PT_INTERP)";
	if (p->p_filesz < 2 || p->p_filesz > sizeof img->interp)
		return fail(f, "%s is %lu bytes long (expected 2 to %zu)", what, p->p_filesz,
			    sizeof img->interp);
	if (check_range(f, what, p->p_offset, p->p_filesz))
		return -1;
	size_t n = (size_t)p->p_filesz;
	if (pread(f->fd, img->interp, n, (off_t)p->p_offset) != (ssize_t)n)
		return fail(f, "cannot read %s", what);
	if (img->interp[n - 1] != '\0')
		return fail(f, "%s does not end with a NUL byte", what);
	if (img->interp[0] == '\0')
		return fail(f, "%s is empty", what);
	return 0;
}

/* Everything mapping will read, checked before anything is mapped. */
static int check_program_headers(const struct elf_file *f, const Elf64_Ehdr *eh,
				 const Elf64_Phdr *ph, struct elf_image *img)
{
	int loads = 0;
	for (int i = 0; i < eh->e_phnum; i++) {
		if (ph[i].p_type == PT_LOAD) {
			if (check_load(f, i, &ph[i]))
				return -1;
			loads++;
		} else if (ph[i].p_type == PT_INTERP && read_interp(f, &ph[i], img)) {
			return -1;
		}
	}
	return loads ? 0 : fail(f, "no loadable segments");
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

/* Reserves the whole span first, so segments land together and nothing else of ours sits
 * in between; a fixed-address program must find its range free. */
static int reserve_span(const struct elf_file *f, const Elf64_Ehdr *eh, const Elf64_Phdr *ph,
			struct elf_image *img, uint64_t *hi_out)
{
	uint64_t lo = UINT64_MAX, hi = 0;
	for (int i = 0; i < eh->e_phnum; i++) {
		if (ph[i].p_type != PT_LOAD)
			continue;
		if (page_down(ph[i].p_vaddr) < lo)
			lo = page_down(ph[i].p_vaddr);
		if (page_up(ph[i].p_vaddr + ph[i].p_memsz) > hi)
			hi = page_up(ph[i].p_vaddr + ph[i].p_memsz);
	}
	if (hi <= lo)
		return fail(f, "no loadable segments");
	void *span;
	if (eh->e_type == ET_DYN) {
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
	if (span == MAP_FAILED)
		return fail(f, "its address range 0x%lx-0x%lx is not free", lo, hi);
	*hi_out = hi;
	return 0;
}

/* The absolute address of the program headers: PT_PHDR, else the PT_LOAD holding them. */
static uint64_t phdr_address(const Elf64_Ehdr *eh, const Elf64_Phdr *ph, uint64_t bias)
{
	for (int i = 0; i < eh->e_phnum; i++)
		if (ph[i].p_type == PT_PHDR)
			return bias + ph[i].p_vaddr;
	for (int i = 0; i < eh->e_phnum; i++)
		if (ph[i].p_type == PT_LOAD && ph[i].p_offset <= eh->e_phoff &&
		    eh->e_phoff < ph[i].p_offset + ph[i].p_filesz)
			return bias + ph[i].p_vaddr + (eh->e_phoff - ph[i].p_offset);
	return 0;
}

static int map_image(const struct elf_file *f, const Elf64_Ehdr *eh, const Elf64_Phdr *ph,
		     bool exec_prot, struct elf_image *img)
{
	uint64_t hi = 0;
	if (reserve_span(f, eh, ph, img, &hi))
		return -1;
	for (int i = 0; i < eh->e_phnum; i++) {
		if (ph[i].p_type != PT_LOAD)
			continue;
		if (map_segment(f->fd, &ph[i], img->bias, exec_prot))
			return fail(f, "%s", strerror(errno));
		/* (an empty one maps nothing, as the kernel's loader maps nothing for it) */
		if (ph[i].p_memsz && img->segment_count < ELF_MAX_SEGMENTS) {
			struct elf_segment *s = &img->segments[img->segment_count++];
			s->start = page_down(img->bias + ph[i].p_vaddr);
			s->end = page_up(img->bias + ph[i].p_vaddr + ph[i].p_memsz);
			s->offset = ph[i].p_offset - (img->bias + ph[i].p_vaddr - s->start);
			s->prot = (uint32_t)prot_of(ph[i].p_flags, true);
		}
	}
	img->entry = img->bias + eh->e_entry;
	img->phnum = eh->e_phnum;
	img->end = img->bias + hi;
	img->phdr = phdr_address(eh, ph, img->bias);
	return 0;
}

int elf_map(const char *path, bool exec_prot, struct elf_image *img, char *err, size_t errlen)
{
	memset(img, 0, sizeof *img);
	struct elf_file f = {.err = err, .errlen = errlen};
	/* O_NONBLOCK: opening a FIFO must not wait for a writer before it is refused. */
	f.fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (f.fd < 0)
		return fail(&f, "%s", strerror(errno));
	Elf64_Ehdr eh;
	Elf64_Phdr ph[MAX_PHDRS];
	int rc = read_headers(&f, &eh, ph) || check_program_headers(&f, &eh, ph, img) ||
			 map_image(&f, &eh, ph, exec_prot, img)
		     ? -1
		     : 0;
	close(f.fd);
	return rc;
}

/* Mapping an ELF file's PT_LOAD segments into memory as the kernel's loader would, after
 * checking every structure the mapping reads against the file's size. */
#ifndef LOADER_ELF_MAP_H
#define LOADER_ELF_MAP_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum { ELF_MAX_SEGMENTS = 16 };

struct elf_image {
	uint64_t bias;	/* added to every p_vaddr (0 for ET_EXEC) */
	uint64_t entry; /* absolute */
	uint64_t phdr;	/* absolute address of the program headers in memory */
	uint64_t phnum;
	uint64_t end;	       /* end of the highest segment */
	char interp[PATH_MAX]; /* PT_INTERP, or "" */
	struct elf_segment {
		uint64_t start, end, offset; /* page-aligned mapping of a PT_LOAD segment */
		uint32_t prot;		     /* PROT_* from p_flags (PROT_EXEC always kept) */
	} segments[ELF_MAX_SEGMENTS];
	int segment_count;
};

/* What is wrong with an ELF header whose first `len` bytes are `head` (at most the
 * header's size need be given), or NULL when it describes a 64-bit x86-64 executable or
 * shared object. */
const char *elf_header_problem(const void *head, size_t len);

/* exec_prot: whether segments keep PROT_EXEC (false in checking mode). Returns 0, or -1
 * with a one-line reason in err (what is wrong, without the path: the caller names the
 * file). Nothing is mapped when the file is found malformed. */
int elf_map(const char *path, bool exec_prot, struct elf_image *img, char *err, size_t errlen);

#endif

/* Resolving address alarms that name a symbol or image+offset, as images get mapped.
 * Reads the image's ELF file with raw syscalls (this runs on app threads). */
#include <elf.h>
#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>

#include "engine_internal.h"
#include "rt_syscall.h"

struct elf_file {
	const uint8_t *data;
	uint64_t size;
	const Elf64_Ehdr *eh;
};

static bool in_file(const struct elf_file *f, uint64_t off, uint64_t len)
{
	return off <= f->size && len <= f->size - off;
}

static bool elf_open(const char *path, struct elf_file *f)
{
	long fd = rt_openat(AT_FDCWD, path, O_RDONLY | O_CLOEXEC, 0);
	if (fd < 0)
		return false;
	struct stat st;
	long r = rt_syscall2(SYS_fstat, fd, (long)&st);
	/* Only a regular file has a size to check every table against. */
	long map = r < 0 || !S_ISREG(st.st_mode) || st.st_size < (off_t)sizeof(Elf64_Ehdr)
		       ? -1
		       : rt_mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, (int)fd, 0);
	rt_close((int)fd);
	if (map < 0 || rt_is_error(map))
		return false;
	f->data = (const uint8_t *)map;
	f->size = (uint64_t)st.st_size;
	f->eh = (const Elf64_Ehdr *)f->data;
	if (memcmp(f->eh->e_ident, ELFMAG, SELFMAG) != 0 ||
	    f->eh->e_ident[EI_CLASS] != ELFCLASS64 || f->eh->e_phentsize != sizeof(Elf64_Phdr) ||
	    (f->eh->e_shnum && f->eh->e_shentsize != sizeof(Elf64_Shdr)) ||
	    !in_file(f, f->eh->e_phoff, (uint64_t)f->eh->e_phnum * sizeof(Elf64_Phdr)) ||
	    !in_file(f, f->eh->e_shoff, (uint64_t)f->eh->e_shnum * sizeof(Elf64_Shdr))) {
		rt_munmap((void *)f->data, f->size);
		return false;
	}
	return true;
}

static void elf_close(struct elf_file *f)
{
	rt_munmap((void *)f->data, f->size);
}

/* The load bias of the image whose segment at file `offset` was mapped at `start`. */
static bool elf_bias(const struct elf_file *f, uint64_t start, uint64_t offset, uint64_t *bias)
{
	const Elf64_Phdr *ph = (const Elf64_Phdr *)(f->data + f->eh->e_phoff);
	for (int i = 0; i < f->eh->e_phnum; i++) {
		if (ph[i].p_type == PT_LOAD && (ph[i].p_offset & ~0xfffull) == offset) {
			*bias = start - (ph[i].p_vaddr & ~0xfffull);
			return true;
		}
	}
	return false;
}

/* st_value of `name` in the symbol table, else the dynamic one; 0 when absent. */
static uint64_t elf_symbol(const struct elf_file *f, const char *name)
{
	const Elf64_Shdr *sh = (const Elf64_Shdr *)(f->data + f->eh->e_shoff);
	const uint32_t kinds[] = {SHT_SYMTAB, SHT_DYNSYM};
	for (int k = 0; k < 2; k++) {
		for (int i = 0; i < f->eh->e_shnum; i++) {
			if (sh[i].sh_type != kinds[k] || sh[i].sh_link >= f->eh->e_shnum ||
			    sh[i].sh_entsize != sizeof(Elf64_Sym) ||
			    !in_file(f, sh[i].sh_offset, sh[i].sh_size))
				continue;
			const Elf64_Shdr *strtab = &sh[sh[i].sh_link];
			if (!in_file(f, strtab->sh_offset, strtab->sh_size))
				continue;
			const Elf64_Sym *sym = (const Elf64_Sym *)(f->data + sh[i].sh_offset);
			const char *str = (const char *)(f->data + strtab->sh_offset);
			size_t n = sh[i].sh_size / sizeof(Elf64_Sym);
			size_t want = strlen(name);
			for (size_t j = 0; j < n; j++) {
				if (!sym[j].st_value || sym[j].st_shndx == SHN_UNDEF ||
				    sym[j].st_name >= strtab->sh_size ||
				    strtab->sh_size - sym[j].st_name <= want)
					continue;
				if (memcmp(str + sym[j].st_name, name, want + 1) == 0)
					return sym[j].st_value;
			}
		}
	}
	return 0;
}

static const char *base_name(const char *path)
{
	const char *slash = strrchr(path, '/');
	return slash ? slash + 1 : path;
}

/* The symbol an alarm is looking for, or NULL when it is not resolved through symbols. */
static const char *wanted_symbol(const struct control_alarm *a)
{
	switch (a->type) {
	case CONTROL_ALARM_ADDRESS:
		return a->u.address.kind == CONTROL_ADDRESS_SYMBOL ? a->u.address.symbol : NULL;
	case CONTROL_ALARM_ENTER_FUNC:
	case CONTROL_ALARM_EXIT_FUNC:
		return a->u.func;
	case CONTROL_ALARM_PCONTROL:
		return "MPI_Pcontrol";
	default:
		return NULL;
	}
}

static bool wants_image(const struct control_alarm *a, const char *path)
{
	if (a->type != CONTROL_ALARM_ADDRESS || a->u.address.kind != CONTROL_ADDRESS_IMAGE_OFFSET)
		return false;
	return strcmp(a->u.address.image, path) == 0 ||
	       strcmp(a->u.address.image, base_name(path)) == 0;
}

void engine_image_mapped(const char *path, uint64_t start, uint64_t end, uint64_t offset, void *arg)
{
	(void)arg;
	(void)end;
	struct elf_file f = {0};
	bool open = false;
	uint64_t bias = 0;
	rt_mutex_lock(&engine.lock);
	for (uint32_t k = 0; k < engine.nrefs; k++) {
		struct alarm_ref *r = &engine.refs[k];
		const struct control_alarm *a = engine_alarm(r);
		if (r->resolved_pc || (!wanted_symbol(a) && !wants_image(a, path)))
			continue;
		if (!open) {
			if (!elf_open(path, &f))
				break;
			open = true;
			if (!elf_bias(&f, start, offset, &bias))
				break;
		}
		uint64_t value =
		    wants_image(a, path) ? a->u.address.offset : elf_symbol(&f, wanted_symbol(a));
		if (value) {
			r->resolved_pc = bias + value;
			if (r->armed > 0 || a->type == CONTROL_ALARM_EXIT_FUNC)
				engine_retranslate_pc(r->resolved_pc);
		}
	}
	if (open)
		elf_close(&f);
	rt_mutex_unlock(&engine.lock);
}

/* What gdb needs to find the program and its shared libraries, built from the app's file
 * mappings (as the runtime keeps them, recorded ones in a replay) and the ELF headers of
 * their files. A replay's pinball holds only the pages its region touched, so ld.so's
 * link_map list and the initial stack's auxiliary vector may not be in memory there: the
 * mappings are, in both the recording and its replay, and give the same answers. */
#include <elf.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "stub_internal.h"

enum { MAX_MAPS = 4096 };

struct file_map {
	uint64_t start, offset;
	const char *path;
};

/* The mappings' paths point into this copy of the answer (the request buffer is reused). */
static uint8_t map_copy[DBG_BUF_SIZE];
static char exe_path[DBG_TEXT_SIZE];
static struct file_map maps[MAX_MAPS];
static size_t nmaps;

static bool load_maps(void)
{
	struct dbg_request *r = stub_begin(DBG_OP_MAP);
	if (!stub_call())
		return false;
	memcpy(map_copy, r->buf, r->out_len);
	snprintf(exe_path, sizeof exe_path, "%s", r->text);
	nmaps = 0;
	for (size_t at = 0; at + sizeof(struct dbg_mapping) <= r->out_len && nmaps < MAX_MAPS;) {
		struct dbg_mapping m;
		memcpy(&m, map_copy + at, sizeof m);
		maps[nmaps++] =
		    (struct file_map){m.start, m.offset, (char *)map_copy + at + sizeof m};
		at += sizeof m + m.path_len;
	}
	return true;
}

/* Where a file's first page is mapped (its load address), 0 when it is not. */
static uint64_t mapped_at(const char *path)
{
	for (size_t i = 0; i < nmaps; i++)
		if (maps[i].offset == 0 && !strcmp(maps[i].path, path))
			return maps[i].start;
	return 0;
}

struct elf_facts {
	uint16_t type, phnum, phentsize;
	uint64_t entry, phoff;
	uint64_t first_load; /* p_vaddr of the first PT_LOAD, page aligned */
	uint64_t dynamic;    /* p_vaddr of PT_DYNAMIC (0: none) */
	uint64_t phdr;	     /* p_vaddr of PT_PHDR (0: none) */
	char interp[PATH_MAX];
};

static bool read_elf(const char *path, struct elf_facts *f)
{
	memset(f, 0, sizeof *f);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	Elf64_Ehdr eh;
	bool ok = pread(fd, &eh, sizeof eh, 0) == sizeof eh &&
		  !memcmp(eh.e_ident, ELFMAG, SELFMAG) && eh.e_ident[EI_CLASS] == ELFCLASS64 &&
		  eh.e_phentsize == sizeof(Elf64_Phdr);
	bool have_load = false;
	for (unsigned i = 0; ok && i < eh.e_phnum; i++) {
		Elf64_Phdr ph;
		if (pread(fd, &ph, sizeof ph, (off_t)(eh.e_phoff + i * sizeof ph)) != sizeof ph)
			break;
		if (ph.p_type == PT_LOAD && !have_load) {
			f->first_load = ph.p_vaddr & ~0xfffull;
			have_load = true;
		} else if (ph.p_type == PT_DYNAMIC) {
			f->dynamic = ph.p_vaddr;
		} else if (ph.p_type == PT_PHDR) {
			f->phdr = ph.p_vaddr;
		} else if (ph.p_type == PT_INTERP && ph.p_filesz < sizeof f->interp) {
			ssize_t n = pread(fd, f->interp, ph.p_filesz, (off_t)ph.p_offset);
			f->interp[n > 0 ? n : 0] = '\0';
		}
	}
	close(fd);
	f->type = eh.e_type;
	f->phnum = eh.e_phnum;
	f->phentsize = eh.e_phentsize;
	f->entry = eh.e_entry;
	f->phoff = eh.e_phoff;
	return ok && have_load;
}

/* What is added to the file's addresses where it is loaded (0 for a fixed ET_EXEC). */
static uint64_t load_bias(const struct elf_facts *f, uint64_t mapped)
{
	return f->type == ET_DYN ? mapped - f->first_load : 0;
}

/* Whether the app's memory at addr holds the program's headers as its file has them. A
 * replay's memory holds only the pages its region touched: gdb compares what AT_PHDR shows
 * with the file and refuses to relocate the program on a mismatch, whereas without AT_PHDR
 * it trusts AT_ENTRY. */
static bool headers_in_memory(const struct elf_facts *f, uint64_t addr)
{
	size_t size = (size_t)f->phnum * f->phentsize;
	uint8_t file[DBG_BUF_SIZE];
	int fd = open(exe_path, O_RDONLY | O_CLOEXEC);
	bool ok = fd >= 0 && size <= sizeof file &&
		  pread(fd, file, size, (off_t)f->phoff) == (ssize_t)size;
	if (fd >= 0)
		close(fd);
	struct dbg_request *r = stub_begin(DBG_OP_READ);
	r->addr = addr;
	r->len = size;
	return ok && stub_call() && r->out_len == size && !memcmp(r->buf, file, size);
}

bool stub_auxv(char **out, size_t *len)
{
	if (!load_maps())
		return false;
	struct elf_facts exe, interp;
	uint64_t v[16], n = 0;
	if (read_elf(exe_path, &exe)) {
		uint64_t bias = load_bias(&exe, mapped_at(exe_path));
		uint64_t phdr = exe.phdr ? exe.phdr : exe.first_load + exe.phoff;
		uint64_t base = 0;
		if (exe.interp[0] && read_elf(exe.interp, &interp))
			base = load_bias(&interp, mapped_at(exe.interp));
		uint64_t entries[][2] = {
		    {AT_PAGESZ, 4096},	    {AT_BASE, base},	       {AT_ENTRY, bias + exe.entry},
		    {AT_PHDR, bias + phdr}, {AT_PHENT, exe.phentsize}, {AT_PHNUM, exe.phnum}};
		size_t count = sizeof entries / sizeof entries[0];
		if (!headers_in_memory(&exe, bias + phdr))
			count -= 3; /* no AT_PHDR, AT_PHENT, AT_PHNUM */
		for (size_t i = 0; i < count; i++) {
			v[n++] = entries[i][0];
			v[n++] = entries[i][1];
		}
	}
	v[n++] = AT_NULL;
	v[n++] = 0;
	*len = n * sizeof v[0];
	*out = malloc(*len);
	if (*out)
		memcpy(*out, v, *len);
	return *out != NULL;
}

static size_t xml_escaped(char *out, size_t size, const char *s)
{
	size_t n = 0;
	for (; *s && n + 7 < size; s++) {
		const char *e = *s == '<'   ? "&lt;"
				: *s == '>' ? "&gt;"
				: *s == '&' ? "&amp;"
				: *s == '"' ? "&quot;"
					    : NULL;
		if (e)
			n += (size_t)snprintf(out + n, size - n, "%s", e);
		else
			out[n++] = *s;
	}
	out[n] = '\0';
	return n;
}

/* The shared objects mapped besides the program (ld.so included), as ld.so would list
 * them: name, load bias, dynamic section. There is no link_map address to give (gdb needs
 * it only for thread-local variables through libthread_db): 0. */
bool stub_libraries(char **out, size_t *len)
{
	if (!load_maps())
		return false;
	size_t cap = 4096 + nmaps * (PATH_MAX + 128), n = 0;
	char *doc = malloc(cap);
	if (!doc)
		return false;
	n += (size_t)snprintf(doc, cap, "<library-list-svr4 version=\"1.0\">");
	for (size_t i = 0; i < nmaps; i++) {
		const struct file_map *m = &maps[i];
		struct elf_facts f;
		if (m->offset || !strcmp(m->path, exe_path) || mapped_at(m->path) != m->start ||
		    !read_elf(m->path, &f) || f.type != ET_DYN)
			continue;
		uint64_t bias = load_bias(&f, m->start);
		char name[2 * PATH_MAX];
		xml_escaped(name, sizeof name, m->path);
		n += (size_t)snprintf(
		    doc + n, cap - n,
		    "<library name=\"%s\" lm=\"0x0\" lmid=\"0x0\" l_addr=\"0x%lx\" "
		    "l_ld=\"0x%lx\"/>",
		    name, bias, f.dynamic ? bias + f.dynamic : 0);
	}
	n += (size_t)snprintf(doc + n, cap - n, "</library-list-svr4>");
	*out = doc;
	*len = n;
	return true;
}

bool stub_exec_file(char **out, size_t *len)
{
	if (!load_maps())
		return false;
	*out = strdup(exe_path);
	*len = strlen(exe_path);
	return *out != NULL;
}

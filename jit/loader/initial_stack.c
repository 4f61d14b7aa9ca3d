#include "initial_stack.h"

#include <elf.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <sys/resource.h>

#ifndef AT_MINSIGSTKSZ
#define AT_MINSIGSTKSZ 51
#endif
#ifndef AT_RSEQ_FEATURE_SIZE
#define AT_RSEQ_FEATURE_SIZE 27
#define AT_RSEQ_ALIGN 28
#endif

enum { DEFAULT_STACK = 8 << 20, MAX_STACK = 256 << 20, MAX_AUXV = 32 };

static size_t stack_size(void)
{
	struct rlimit rl;
	if (getrlimit(RLIMIT_STACK, &rl) != 0 || rl.rlim_cur == RLIM_INFINITY)
		return DEFAULT_STACK;
	if (rl.rlim_cur > MAX_STACK)
		return MAX_STACK;
	return rl.rlim_cur < DEFAULT_STACK ? DEFAULT_STACK : rl.rlim_cur;
}

/* Copies a string below *top and returns its address. */
static uint64_t push_string(uint64_t *top, const char *s)
{
	size_t n = strlen(s) + 1;
	*top -= n;
	memcpy((void *)*top, s, n);
	return *top;
}

static size_t count(char *const *v)
{
	size_t n = 0;
	while (v && v[n])
		n++;
	return n;
}

int initial_stack_build(char *const *argv, char *const *envp, const char *execfn,
			const struct elf_image *exe, const struct elf_image *interp,
			struct initial_stack *out)
{
	size_t size = stack_size();
	/* A guard gap below the stack, as the kernel keeps one: an overflow faults there
	 * instead of running into whatever else is mapped (the runtime's own memory). */
	void *gap = mmap(NULL, STACK_GUARD_GAP + size, PROT_NONE,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (gap == MAP_FAILED)
		return -1;
	void *base =
	    mmap((char *)gap + STACK_GUARD_GAP, size, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_STACK | MAP_FIXED, -1, 0);
	if (base == MAP_FAILED)
		return -1;
	out->guard = (uint64_t)gap;
	uint64_t top = (uint64_t)base + size - 16;
	size_t argc = count(argv), envc = count(envp);

	uint64_t execfn_addr = push_string(&top, execfn);
	uint64_t *env_addrs = (uint64_t *)((uint64_t)base); /* scratch at the bottom */
	for (size_t i = 0; i < envc; i++)
		env_addrs[i] = push_string(&top, envp[i]);
	uint64_t *arg_addrs = env_addrs + envc;
	for (size_t i = 0; i < argc; i++)
		arg_addrs[i] = push_string(&top, argv[i]);
	uint64_t platform = push_string(&top, "x86_64");
	top = (top - 16) & ~(uint64_t)15;
	uint64_t random_addr = top;
	if (getrandom((void *)random_addr, 16, 0) != 16)
		memset((void *)random_addr, 0x5a, 16);

	uint64_t aux[MAX_AUXV * 2];
	size_t na = 0;
#define AUX(key, value) (aux[na++] = (key), aux[na++] = (uint64_t)(value))
	AUX(AT_MINSIGSTKSZ, getauxval(AT_MINSIGSTKSZ));
	AUX(AT_HWCAP, getauxval(AT_HWCAP));
	AUX(AT_PAGESZ, 4096);
	AUX(AT_CLKTCK, getauxval(AT_CLKTCK));
	AUX(AT_PHDR, exe->phdr);
	AUX(AT_PHENT, sizeof(Elf64_Phdr));
	AUX(AT_PHNUM, exe->phnum);
	AUX(AT_BASE, interp ? interp->bias : 0);
	AUX(AT_FLAGS, 0);
	AUX(AT_ENTRY, exe->entry);
	AUX(AT_UID, getauxval(AT_UID));
	AUX(AT_EUID, getauxval(AT_EUID));
	AUX(AT_GID, getauxval(AT_GID));
	AUX(AT_EGID, getauxval(AT_EGID));
	AUX(AT_SECURE, 0);
	AUX(AT_RANDOM, random_addr);
	AUX(AT_HWCAP2, getauxval(AT_HWCAP2));
	if (getauxval(AT_RSEQ_FEATURE_SIZE)) {
		AUX(AT_RSEQ_FEATURE_SIZE, getauxval(AT_RSEQ_FEATURE_SIZE));
		AUX(AT_RSEQ_ALIGN, getauxval(AT_RSEQ_ALIGN));
	}
	AUX(AT_EXECFN, execfn_addr);
	AUX(AT_PLATFORM, platform);
	AUX(AT_NULL, 0);
#undef AUX

	size_t words = 1 + argc + 1 + envc + 1 + na;
	uint64_t sp = (top - words * 8) & ~(uint64_t)15;
	uint64_t *w = (uint64_t *)sp;
	*w++ = argc;
	for (size_t i = 0; i < argc; i++)
		*w++ = arg_addrs[i];
	*w++ = 0;
	for (size_t i = 0; i < envc; i++)
		*w++ = env_addrs[i];
	*w++ = 0;
	out->auxv = w;
	out->auxv_bytes = na * 8;
	memcpy(w, aux, na * 8);
	out->sp = sp;
	out->base = (uint64_t)base;
	out->size = size;
	memset(base, 0, (argc + envc) * 8); /* the scratch pointer arrays */
	return 0;
}

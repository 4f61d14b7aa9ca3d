/* Instructions that need care from a translator, run from a page of code built here: a
 * fault's si_addr and pc must be the app's (ud2, an opcode the decoder does not know, a
 * division by zero); gs-prefixed NOPs and lea name memory without touching it; xbegin
 * raises SIGILL where this CPU does, and otherwise either commits or aborts to its fallback
 * path (a transaction may abort at any time: natively it may commit, under the JIT it
 * aborts, and both print the same). Offsets are printed relative to the page. */
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <ucontext.h>

static unsigned char *code;
static sigjmp_buf back;

static void on_signal(int sig, siginfo_t *info, void *ctx)
{
	ucontext_t *uc = ctx;
	printf("  signal %d code %d at +%ld, pc +%ld\n", sig, info->si_code,
	       (long)((unsigned char *)info->si_addr - code),
	       (long)((unsigned char *)uc->uc_mcontext.gregs[REG_RIP] - code));
	siglongjmp(back, 1);
}

/* Copies the bytes, a ret after them, and runs them; returns %eax. */
static long run(const char *what, const unsigned char *bytes, size_t n)
{
	printf("%s\n", what);
	memcpy(code, bytes, n);
	code[n] = 0xc3;
	if (sigsetjmp(back, 1))
		return -1;
	long r = ((long (*)(void))code)();
	printf("  returned %ld\n", r);
	return r;
}

int main(void)
{
	code = mmap(NULL, 4096, PROT_READ | PROT_WRITE | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1,
		    0);
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_sigaction = on_signal;
	sa.sa_flags = SA_SIGINFO | SA_NODEFER;
	sigaction(SIGILL, &sa, NULL);
	sigaction(SIGFPE, &sa, NULL);
	sigaction(SIGSEGV, &sa, NULL);
	static const unsigned char ud2[] = {0x90, 0x90, 0x0f, 0x0b};
	run("ud2 after two nops", ud2, sizeof ud2);
	static const unsigned char unknown[] = {0x90, 0x0f, 0xff, 0xff, 0xff, 0xff};
	run("an opcode no decoder knows", unknown, sizeof unknown);
	static const unsigned char divide[] = {0x31, 0xc9, 0xb8, 7, 0, 0, 0, 0x99, 0xf7, 0xf9};
	run("idiv by zero", divide, sizeof divide); /* xor %ecx,%ecx; mov $7,%eax; cltd; idiv */
	static const unsigned char gs_nops[] = {
	    0xb8, 42,	0,    0,    0, /* mov $42,%eax */
	    0x65, 0x0f, 0x1f, 0x00,    /* nopl %gs:(%rax) */
	    0x65, 0x0f, 0x19, 0xc0,    /* hint nop */
	    0x65, 0x0f, 0x1e, 0x00,    /* hint nop, memory form */
	    0x65, 0x0f, 0x18, 0x00,    /* prefetchnta %gs:(%rax) */
	};
	run("gs-prefixed nops and a prefetch", gs_nops, sizeof gs_nops);
	/* Both ways end at the same mov: a transaction that commits and one that aborts
	 * return 3 alike. */
	static const unsigned char xbegin[] = {
	    0xb8, 1,	0,    0, 0,    /* mov $1,%eax */
	    0xc7, 0xf8, 3,    0, 0, 0, /* xbegin +3 (to the abort path, past the xend) */
	    0x0f, 0x01, 0xd5,	       /* xend */
	    0xb8, 3,	0,    0, 0,    /* both paths: mov $3,%eax */
	};
	long r = run("xbegin", xbegin, sizeof xbegin);
	printf("xbegin: %s\n", r == -1	? "refused (SIGILL)"
			       : r == 3 ? "committed or aborted"
					: "went astray");
	return 0;
}

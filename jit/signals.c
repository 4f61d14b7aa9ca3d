#include "signals.h"

#include <errno.h>
#include <signal.h>
#include <string.h>
#include <sys/mman.h>
#include <ucontext.h>

#include "code_cache.h"
#include "config.h"
#include "fatal.h"
#include "instrument.h"
#include "rt_syscall.h"

/* The kernel's struct sigaction for rt_sigaction. */
struct kernel_sigaction {
	uint64_t handler;
	uint64_t flags;
	uint64_t restorer;
	uint64_t mask;
};

#define SA_RESTORER_FLAG 0x04000000
#define SS_AUTODISARM_FLAG (1u << 31)
/* The kernel's own floor (glibc's MINSIGSTKSZ is a sysconf call). */
#define LEGACY_MINSIGSTKSZ 2048u
enum { NSIG_KERNEL = 65, ALT_STACK_SIZE = 64 * 1024 };

static struct kernel_sigaction app_actions[NSIG_KERNEL];
static stack_t app_altstack = {.ss_flags = SS_DISABLE};

extern void signals_restorer(void);
__asm__(".text\n"
	"signals_restorer:\n\t"
	"mov $15, %eax\n\t" /* rt_sigreturn */
	"syscall\n");

static const int fault_signals[] = {SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGTRAP};

static bool is_fault_signal(int sig)
{
	for (unsigned i = 0; i < sizeof fault_signals / sizeof fault_signals[0]; i++)
		if (fault_signals[i] == sig)
			return true;
	return false;
}

static long kernel_sigaction(int sig, const struct kernel_sigaction *act,
			     struct kernel_sigaction *old)
{
	return rt_syscall4(SYS_rt_sigaction, sig, (long)act, (long)old, 8);
}

void signals_die_by(int sig)
{
	struct kernel_sigaction dfl = {.handler = (uint64_t)SIG_DFL};
	kernel_sigaction(sig, &dfl, NULL);
	uint64_t unblock = 1ull << (sig - 1);
	rt_syscall4(SYS_rt_sigprocmask, SIG_UNBLOCK, (long)&unblock, 0, 8);
	rt_tgkill(rt_getpid(), rt_gettid(), sig);
	/* Signals whose default action is to ignore (SIGCHLD...) cannot kill us. */
	rt_exit_group(128 + sig);
	__builtin_unreachable();
}

static bool app_has_handler(int sig)
{
	uint64_t h = app_actions[sig].handler;
	return h != (uint64_t)SIG_DFL && h != (uint64_t)SIG_IGN;
}

void signals_app_fault(struct jit_thread *t, int sig, uint64_t pc)
{
	(void)t;
	if (app_has_handler(sig))
		fatal("signal %d at 0x%lx: delivering signals to the app's handlers is not "
		      "supported yet",
		      sig, pc);
	signals_die_by(sig);
}

static void on_fault(int sig, siginfo_t *info, void *ctx)
{
	ucontext_t *uc = ctx;
	uint64_t pc = (uint64_t)uc->uc_mcontext.gregs[REG_RIP];
	uint64_t addr = (uint64_t)info->si_addr;
	if (sig == SIGSEGV && info->si_code == SEGV_ACCERR && jit_grant_access(addr))
		return; /* a withheld page, now accessible: the access is retried */
	if (code_cache_contains(pc)) {
		if (app_has_handler(sig))
			fatal("signal %d in app code: delivering signals to the app's handlers "
			      "is not supported yet",
			      sig);
		signals_die_by(sig);
	}
	if (jit_config.check_native_exec && sig == SIGSEGV && addr == pc)
		fatal("app code ran natively, outside the code cache, at 0x%lx", pc);
	fatal("internal fault: signal %d at pc 0x%lx (address 0x%lx)", sig, pc, addr);
}

static void on_async(int sig, siginfo_t *info, void *ctx)
{
	(void)info;
	(void)ctx;
	fatal("signal %d arrived for the app's handler: delivering signals to app handlers is "
	      "not supported yet",
	      sig);
}

static void install(int sig, void (*fn)(int, siginfo_t *, void *))
{
	struct kernel_sigaction act = {
		.handler = (uint64_t)fn,
		.flags = SA_SIGINFO | SA_ONSTACK | SA_RESTORER_FLAG | SA_NODEFER,
		.restorer = (uint64_t)signals_restorer,
	};
	kernel_sigaction(sig, &act, NULL);
}

void signals_init(void)
{
	long stack = rt_mmap(NULL, ALT_STACK_SIZE, PROT_READ | PROT_WRITE,
			     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (!rt_is_error(stack)) {
		stack_t ss = {.ss_sp = (void *)stack, .ss_size = ALT_STACK_SIZE};
		rt_syscall2(SYS_sigaltstack, (long)&ss, 0);
	}
	for (int sig = 1; sig < NSIG_KERNEL; sig++)
		kernel_sigaction(sig, NULL, &app_actions[sig]);
	for (unsigned i = 0; i < sizeof fault_signals / sizeof fault_signals[0]; i++)
		install(fault_signals[i], on_fault);
}

static bool copy_in(void *dst, uint64_t src, size_t n)
{
	return src && (memcpy(dst, (const void *)src, n), true);
}

long signals_app_sigaction(int sig, uint64_t act, uint64_t oldact, uint64_t sigsetsize)
{
	if (sig < 1 || sig >= NSIG_KERNEL || sigsetsize != 8)
		return -EINVAL;
	if (act && (sig == SIGKILL || sig == SIGSTOP))
		return -EINVAL;
	struct kernel_sigaction old = app_actions[sig];
	struct kernel_sigaction new;
	if (copy_in(&new, act, sizeof new)) {
		app_actions[sig] = new;
		if (!is_fault_signal(sig)) {
			if (app_has_handler(sig)) {
				install(sig, on_async);
			} else {
				struct kernel_sigaction plain = {.handler = new.handler};
				kernel_sigaction(sig, &plain, NULL);
			}
		}
	}
	if (oldact)
		memcpy((void *)oldact, &old, sizeof old);
	return 0;
}

long signals_app_sigaltstack(uint64_t ss, uint64_t old_ss)
{
	stack_t old = app_altstack;
	if (ss) {
		stack_t s;
		memcpy(&s, (const void *)ss, sizeof s);
		if (s.ss_flags & ~(SS_DISABLE | SS_AUTODISARM_FLAG))
			return -EINVAL;
		if (!(s.ss_flags & SS_DISABLE) && s.ss_size < LEGACY_MINSIGSTKSZ)
			return -ENOMEM;
		app_altstack = s;
	}
	if (old_ss)
		memcpy((void *)old_ss, &old, sizeof old);
	return 0;
}

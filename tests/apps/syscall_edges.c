/* System calls the runtime emulates, given what careless or tricky programs give them: bad
 * pointers (EFAULT, never a crash of the runtime), and sigaltstack's rules (EPERM while on
 * the alternate stack, SS_ONSTACK reported there, SS_ONSTACK accepted as "enable"). Each
 * line is the call's result and errno, to compare with a native run. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#define BAD ((void *)0x10)

static void show(const char *what, long r)
{
	printf("%-36s %ld %s\n", what, r, r < 0 ? strerror(errno) : "");
}

static char altstack[65536];
static long on_stack_result, on_stack_flags, on_stack_errno;

static void on_usr1(int sig)
{
	(void)sig;
	stack_t old = {.ss_flags = -1}, again = {.ss_sp = altstack, .ss_size = sizeof altstack};
	on_stack_result = syscall(SYS_sigaltstack, &again, NULL);
	on_stack_errno = errno;
	syscall(SYS_sigaltstack, NULL, &old);
	on_stack_flags = old.ss_flags;
}

int main(void)
{
	show("sigaltstack(NULL, bad)", syscall(SYS_sigaltstack, NULL, BAD));
	show("sigaltstack(bad, NULL)", syscall(SYS_sigaltstack, BAD, NULL));
	show("rt_sigaction(USR1, bad, NULL)", syscall(SYS_rt_sigaction, SIGUSR1, BAD, NULL, 8));
	show("rt_sigaction(USR1, NULL, bad)", syscall(SYS_rt_sigaction, SIGUSR1, NULL, BAD, 8));
	show("rt_sigprocmask(BLOCK, bad, NULL)",
	     syscall(SYS_rt_sigprocmask, SIG_BLOCK, BAD, NULL, 8));
	show("rt_sigprocmask(BLOCK, NULL, bad)",
	     syscall(SYS_rt_sigprocmask, SIG_BLOCK, NULL, BAD, 8));
	show("arch_prctl(ARCH_GET_FS, bad)", syscall(SYS_arch_prctl, 0x1003, BAD));
	show("readlink(/proc/self/exe, bad)", syscall(SYS_readlink, "/proc/self/exe", BAD, 64));
	show("open(bad)", syscall(SYS_open, BAD, O_RDONLY));
	show("readlink(bad)", syscall(SYS_readlink, BAD, altstack, 64));
	show("execve(bad, NULL, NULL)", syscall(SYS_execve, BAD, NULL, NULL));
	show("execve(/bin/true, bad, NULL)", syscall(SYS_execve, "/bin/true", BAD, NULL));

	stack_t old, ss = {.ss_sp = altstack, .ss_size = sizeof altstack, .ss_flags = SS_ONSTACK};
	show("sigaltstack(SS_ONSTACK: enable)", syscall(SYS_sigaltstack, &ss, &old));
	printf("  old flags %d size %zu\n", old.ss_flags, old.ss_size);
	ss.ss_flags = 0x40;
	show("sigaltstack(bad flags)", syscall(SYS_sigaltstack, &ss, NULL));
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_usr1;
	sa.sa_flags = SA_ONSTACK;
	sigaction(SIGUSR1, &sa, NULL);
	raise(SIGUSR1);
	printf("on the alternate stack: result %ld (%s), old flags %ld\n", on_stack_result,
	       on_stack_result ? strerror((int)on_stack_errno) : "", on_stack_flags);
	syscall(SYS_sigaltstack, NULL, &old);
	printf("off it: flags %d size %zu\n", old.ss_flags, old.ss_size);
	ss.ss_flags = SS_DISABLE;
	show("sigaltstack(SS_DISABLE)", syscall(SYS_sigaltstack, &ss, NULL));
	syscall(SYS_sigaltstack, NULL, &old);
	printf("disabled: flags %d size %zu sp %s\n", old.ss_flags, old.ss_size,
	       old.ss_sp ? "set" : "null");
	return 0;
}

/* A handler on an alternate signal stack of 8 KiB (the classic SIGSTKSZ): the kernel's
 * frame fits there whatever the CPU, as it holds only the state components the process
 * may use (without AMX's 8 KiB of tile data until the process asks for them), and so must
 * the frame the runtime builds. Prints whether the handler ran on that stack and whether a
 * floating-point value survived it. */
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

static char altstack[8192] __attribute__((aligned(16)));
static volatile int on_altstack;

static void on_usr1(int sig)
{
	(void)sig;
	char here;
	uintptr_t at = (uintptr_t)&here;
	on_altstack = at >= (uintptr_t)altstack && at < (uintptr_t)altstack + sizeof altstack;
	volatile double clobber = 2.5;
	(void)clobber;
}

int main(void)
{
	stack_t ss = {.ss_sp = altstack, .ss_size = sizeof altstack};
	if (sigaltstack(&ss, NULL))
		return 1;
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_usr1;
	sa.sa_flags = SA_ONSTACK;
	sigaction(SIGUSR1, &sa, NULL);
	volatile double kept = 1.25;
	raise(SIGUSR1);
	printf("handler on the alternate stack: %s; value kept: %g\n", on_altstack ? "yes" : "no",
	       kept);
	return 0;
}

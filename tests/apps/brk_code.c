/* Code in the program break runs, then the break is lowered below it: natively a call
 * there faults. Under the JIT neither the old translation nor the page's being known as
 * readable may outlive the break's lowering (it ran the old code, or faulted in the
 * runtime). Prints what each call did. */
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static sigjmp_buf back;

static void on_segv(int sig)
{
	(void)sig;
	siglongjmp(back, 1);
}

/* Without stdio's buffer, which malloc would place in the break this program moves. */
static void say(const char *what, int value)
{
	char line[64];
	int n = snprintf(line, sizeof line, "%s: %d\n", what, value);
	if (write(1, line, (size_t)n) != n)
		_exit(2);
}

int main(void)
{
	long page = sysconf(_SC_PAGESIZE);
	char *code = (char *)(((unsigned long)sbrk(0) + (unsigned long)page - 1) &
			      ~((unsigned long)page - 1));
	if (brk(code + page))
		return 1;
	static const unsigned char ret42[] = {0xb8, 42, 0, 0, 0, 0xc3}; /* mov $42,%eax; ret */
	memcpy(code, ret42, sizeof ret42);
	if (mprotect(code, (size_t)page, PROT_READ | PROT_WRITE | PROT_EXEC))
		return 1;
	int (*fn)(void) = (int (*)(void))(void *)code;
	say("before", fn());
	if (brk(code))
		return 1;
	struct sigaction sa = {.sa_handler = on_segv};
	sigaction(SIGSEGV, &sa, NULL);
	if (sigsetjmp(back, 1) == 0)
		say("after", fn());
	else
		say("after, SIGSEGV", 0);
	return 0;
}

/* The gdb tests' program: a call chain with locals, a global that changes at known writes,
 * a code checksum (a breakpoint must never show in app memory), an exit status; with a
 * second argument "signals", it sends itself SIGUSR1 twice and says how many reached its
 * handler; with "segv", it writes through a null pointer in fault_here() (unhandled: it dies
 * of SIGSEGV), with "segv_handled" the same with a handler that says so and exits with 3.
 * Built without optimisation so that every local lives on the stack where gdb looks for
 * it. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int counter; /* the watched global: written once per step of accumulate */

int square(int x)
{
	int result = x * x;
	return result;
}

int accumulate(int n)
{
	int total = 0;
	for (int i = 1; i <= n; i++) {
		total += square(i);
		counter = total;
	}
	return total;
}

/* A sum of main's first bytes, as the app sees them. */
static unsigned checksum(void)
{
	const unsigned char *p = (const unsigned char *)accumulate;
	unsigned sum = 0;
	for (int i = 0; i < 64; i++)
		sum = sum * 31 + p[i];
	return sum;
}

static volatile sig_atomic_t usr1_handled;

static void on_usr1(int sig)
{
	(void)sig;
	usr1_handled++;
}

static void on_segv(int sig)
{
	(void)sig;
	static const char said[] = "segv handled\n";
	write(1, said, sizeof said - 1);
	_exit(3);
}

void fault_here(int *volatile where)
{
	*where = counter;
}

/* A known %ymm0 where accumulate starts (gdb reads it there), whatever the C library's
 * string functions, which differ from CPU to CPU, left in it. */
static void load_vector_pattern(void)
{
	static const int pattern[8] = {1, 2, 3, 4, 5, 6, 7, 8};
	if (__builtin_cpu_supports("avx"))
		__asm__ volatile("vmovdqu %0, %%ymm0" : : "m"(pattern) : "xmm0");
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 4;
	if (argc > 2 && !strncmp(argv[2], "segv", 4)) {
		if (!strcmp(argv[2], "segv_handled"))
			signal(SIGSEGV, on_segv);
		fault_here(NULL);
	}
	if (argc > 2 && !strcmp(argv[2], "signals")) {
		signal(SIGUSR1, on_usr1);
		raise(SIGUSR1);
		raise(SIGUSR1);
		printf("usr1 handled %d\n", (int)usr1_handled);
	}
	unsigned before = checksum();
	load_vector_pattern();
	int total = accumulate(n);
	printf("total %d counter %d code %s\n", total, counter,
	       checksum() == before ? "unchanged" : "CHANGED");
	return total % 7;
}

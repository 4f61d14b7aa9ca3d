/* Ends by a signal, as chosen by argv[1]: the parent must see the same wait status under
 * the logger as natively (the logger dies of the same signal), and a recording ends where
 * the app died. abort, segv, term, fpe: the main thread; thread_segv: a second thread
 * faults while the main thread waits for it; spin: loops until a signal from outside.
 * Stack overflows (SIGSEGV): overflow_main, the main thread's stack; overflow_guard, a
 * thread's small stack with a guard page below; overflow_noguard, a thread's stack of the
 * program's own with nothing mapped below; overflow_handled, the main thread's with a
 * SIGSEGV handler but no alternate stack (the kernel cannot deliver it there). */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

static volatile int *volatile nowhere = (int *)16;

static void *faulting_thread(void *arg)
{
	printf("thread about to fault\n");
	fflush(stdout);
	*nowhere = 1;
	return arg;
}

static volatile int bottomless = 1;

/* Recurses until the stack runs out (the frame is kept: the call is no tail call). */
static int deeper(int depth)
{
	volatile char frame[512];
	frame[0] = (char)depth;
	if (!bottomless)
		return 0;
	return deeper(depth + 1) + frame[0];
}

static void *overflowing_thread(void *arg)
{
	printf("thread about to overflow its stack\n");
	fflush(stdout);
	deeper(0);
	return arg;
}

enum { THREAD_STACK = 256 << 10, PAGE = 4096 };

/* A thread on a small stack: with the guard page pthread puts below it, or on memory of
 * our own with an unmapped page below it. */
static void overflow_in_thread(int guarded)
{
	pthread_attr_t attr;
	pthread_attr_init(&attr);
	if (guarded) {
		pthread_attr_setstacksize(&attr, THREAD_STACK);
	} else {
		char *m = mmap(NULL, THREAD_STACK + PAGE, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		munmap(m, PAGE);
		pthread_attr_setstack(&attr, m + PAGE, THREAD_STACK);
	}
	pthread_t t;
	pthread_create(&t, &attr, overflowing_thread, NULL);
	pthread_join(t, NULL);
}

static void never_runs(int sig)
{
	(void)sig;
	printf("handler ran\n");
}

int main(int argc, char **argv)
{
	const char *how = argc > 1 ? argv[1] : "abort";
	printf("about to die by %s\n", how);
	fflush(stdout);
	if (!strcmp(how, "abort"))
		abort();
	if (!strcmp(how, "segv"))
		*(volatile int *)(long)argc = 1; /* address 2: unmapped */
	if (!strcmp(how, "term"))
		raise(SIGTERM);
	if (!strcmp(how, "fpe")) {
		volatile int zero = argc - 2;
		printf("%d\n", argc / zero);
	}
	if (!strcmp(how, "thread_segv")) {
		pthread_t t;
		pthread_create(&t, NULL, faulting_thread, NULL);
		pthread_join(t, NULL);
	}
	if (!strcmp(how, "overflow_handled"))
		signal(SIGSEGV, never_runs);
	if (!strcmp(how, "overflow_main") || !strcmp(how, "overflow_handled"))
		deeper(0);
	if (!strcmp(how, "overflow_guard") || !strcmp(how, "overflow_noguard"))
		overflow_in_thread(!strcmp(how, "overflow_guard"));
	if (!strcmp(how, "spin"))
		for (volatile unsigned long i = 0;; i++)
			;
	return 3;
}

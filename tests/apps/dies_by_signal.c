/* Ends by a signal, as chosen by argv[1]: the parent must see the same wait status under
 * the logger as natively (the logger dies of the same signal). */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
	return 3;
}

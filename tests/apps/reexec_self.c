/* Re-executes itself through /proc/self/exe with arguments of its own (--inner), as
 * programs that fork a copy of themselves as a helper do; the copy prints its arguments. */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "--inner")) {
		printf("inner:");
		for (int i = 2; i < argc; i++)
			printf(" %s", argv[i]);
		printf("\n");
		return 5;
	}
	printf("outer, re-executing\n");
	fflush(stdout);
	char *args[] = {argv[0], "--inner", "-x", "--", "y", NULL};
	execv("/proc/self/exe", args);
	perror("execv");
	return 1;
}

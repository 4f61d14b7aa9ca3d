/* Prints "tick <k>" every MS milliseconds (default 1000), LINES times (default 5), then
 * "ticker done" and exits: a program that lives a few seconds, mostly asleep, for tests that
 * talk to the logger while it runs (the interactive controller). */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

int main(int argc, char **argv)
{
	int lines = argc > 1 ? atoi(argv[1]) : 5;
	long ms = argc > 2 ? atol(argv[2]) : 1000;
	struct timespec pause = {ms / 1000, (ms % 1000) * 1000000};
	for (int k = 1; k <= lines; k++) {
		printf("tick %d\n", k);
		fflush(stdout);
		nanosleep(&pause, NULL);
	}
	printf("ticker done\n");
	return 0;
}

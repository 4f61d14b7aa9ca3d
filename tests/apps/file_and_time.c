/* Reads a file and the time and prints both: a replay must print the same even after the
 * file is gone and the clock has moved on (nothing is re-executed). */
#include <stdio.h>
#include <sys/time.h>
#include <time.h>

int main(int argc, char **argv)
{
	if (argc < 2)
		return 2;
	FILE *f = fopen(argv[1], "r");
	if (!f) {
		perror(argv[1]);
		return 1;
	}
	char line[256];
	while (fgets(line, sizeof line, f))
		printf("file: %s", line);
	fclose(f);
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	struct timeval tv;
	gettimeofday(&tv, NULL);
	printf("clock: %ld.%09ld time: %ld tv: %ld.%06ld\n", (long)ts.tv_sec, ts.tv_nsec,
	       (long)time(NULL), (long)tv.tv_sec, (long)tv.tv_usec);
	return 0;
}

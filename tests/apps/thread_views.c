/* How many threads a single-threaded process sees of itself: /proc/self/status's Threads,
 * /proc/self/stat's 20th field, the entries of /proc/self/task. One each natively, and
 * under any tool (a recording's writer threads are the runtime's, not the app's). */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(void)
{
	char line[512];
	FILE *f = fopen("/proc/self/status", "r");
	while (f && fgets(line, sizeof line, f))
		if (!strncmp(line, "Threads:", 8))
			printf("status %s", line);
	if (f)
		fclose(f);
	f = fopen("/proc/self/stat", "r");
	if (f && fgets(line, sizeof line, f)) {
		char *field = strrchr(line, ')');
		for (int i = 2; field && i < 20; i++)
			field = strchr(field + 1, ' ');
		if (field)
			printf("stat num_threads %ld\n", strtol(field + 1, NULL, 10));
	}
	if (f)
		fclose(f);
	DIR *d = opendir("/proc/self/task");
	int tasks = 0;
	for (struct dirent *e; d && (e = readdir(d));)
		tasks += e->d_name[0] != '.';
	if (d)
		closedir(d);
	printf("task entries %d\n", tasks);
	return 0;
}

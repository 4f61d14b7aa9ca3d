/* What /proc/self/status says of the process's signals (SigBlk, SigIgn, SigCgt) after it
 * catches SIGUSR1, ignores SIGUSR2 and blocks SIGHUP: the same natively and under any tool
 * (the runtime's own dispositions and mask are not the app's). */
#include <signal.h>
#include <stdio.h>
#include <string.h>

static void on_usr1(int sig)
{
	(void)sig;
}

static int print_signal_lines(const char *path)
{
	FILE *f = fopen(path, "r");
	if (!f)
		return 1;
	char line[256];
	while (fgets(line, sizeof line, f))
		if (!strncmp(line, "SigBlk:", 7) || !strncmp(line, "SigIgn:", 7) ||
		    !strncmp(line, "SigCgt:", 7))
			printf("%s: %s", path, line);
	fclose(f);
	return 0;
}

int main(void)
{
	signal(SIGUSR1, on_usr1);
	signal(SIGUSR2, SIG_IGN);
	sigset_t hup;
	sigemptyset(&hup);
	sigaddset(&hup, SIGHUP);
	sigprocmask(SIG_BLOCK, &hup, NULL);
	return print_signal_lines("/proc/self/status") |
	       print_signal_lines("/proc/thread-self/status");
}

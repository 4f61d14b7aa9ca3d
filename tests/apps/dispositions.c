/* Prints how a few signals are handled (default, ignored, caught) as the program sees it:
 * inherited from whoever started it, or from a pinball in a replay. */
#include <signal.h>
#include <stdio.h>

int main(void)
{
	static const int sigs[] = {SIGINT, SIGHUP, SIGQUIT, SIGTERM, SIGPIPE};
	for (unsigned i = 0; i < sizeof sigs / sizeof sigs[0]; i++) {
		struct sigaction old;
		sigaction(sigs[i], NULL, &old);
		printf("signal %d: %s\n", sigs[i],
		       old.sa_handler == SIG_DFL   ? "default"
		       : old.sa_handler == SIG_IGN ? "ignored"
						   : "caught");
	}
	return 0;
}

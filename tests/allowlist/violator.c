/* Deliberately breaks the app-thread rule, so the allowlist test can prove it catches it. */
#include <stdio.h>
#include <stdlib.h>

void violator_report(int n)
{
	char *p = malloc(16);
	printf("%d %p\n", n, (void *)p);
	free(p);
}

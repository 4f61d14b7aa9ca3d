/* A library to preload (LD_PRELOAD): its constructor says so on stdout, once per program
 * that loads it. */
#include <unistd.h>

__attribute__((constructor)) static void hello(void)
{
	static const char line[] = "preload_hello: constructor\n";
	if (write(1, line, sizeof line - 1) < 0)
		_exit(3);
}

/* Reads a byte from stdin: 'a' prints "read a" and exits; anything else spins for ever
 * without a system call (what a replay led astray by a pinball may do). */
#include <stdio.h>
#include <unistd.h>

int main(void)
{
	char c = 0;
	if (read(0, &c, 1) != 1)
		return 2;
	if (c != 'a')
		for (volatile unsigned long i = 0;; i++)
			;
	puts("read a");
	return 0;
}

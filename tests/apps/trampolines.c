/* GCC's nested functions: taking their address writes a trampoline (code) on the stack,
 * which then runs from there; the second function's trampoline reuses the first's stack
 * slot, so the code at that address changes while the program runs. Unbuffered output:
 * one write per line, each checked by the replay. */
#include <stdio.h>

static void apply(void (*f)(int), int n)
{
	for (int i = 0; i < n; i++)
		f(i);
}

static int run(int scale)
{
	int sum = 0;
	void add(int x)
	{
		sum += x * scale;
		printf("add %d: %d\n", x, sum);
	}
	apply(add, 3);
	return sum;
}

int main(void)
{
	setvbuf(stdout, NULL, _IONBF, 0);
	int a = run(1);
	int b = run(10);
	printf("sums %d %d\n", a, b);
	return 0;
}

/* Deep recursion (a 200000-frame chain) and mutual recursion. */
#include <stdio.h>
#include <stdlib.h>

static unsigned long depth_sum(unsigned long n)
{
	return n == 0 ? 0 : n + depth_sum(n - 1);
}

static int is_odd(unsigned n);
static int is_even(unsigned n)
{
	return n == 0 ? 1 : is_odd(n - 1);
}
static int is_odd(unsigned n)
{
	return n == 0 ? 0 : is_even(n - 1);
}

static unsigned ackermann(unsigned m, unsigned n)
{
	if (m == 0)
		return n + 1;
	if (n == 0)
		return ackermann(m - 1, 1);
	return ackermann(m - 1, ackermann(m, n - 1));
}

int main(int argc, char **argv)
{
	unsigned long n = argc > 1 ? strtoul(argv[1], NULL, 10) : 200000;
	printf("sum=%lu even=%d ack=%u\n", depth_sum(n), is_even(100001), ackermann(2, 2000));
	return 0;
}

/* Reads the time stamp counter in a function that either a forked child runs (argument
 * "child") or its parent, after the child has exited (argument "parent"). A recorder that
 * kept the child's translation of it (made out of its region: the child is not recorded)
 * and used it in the recorded parent would let the parent's rdtsc go unrecorded. */
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static __attribute__((noinline)) unsigned long long stamp(void)
{
	unsigned lo, hi;
	__asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
	return (unsigned long long)hi << 32 | lo;
}

int main(int argc, char **argv)
{
	int in_child = argc < 2 || strcmp(argv[1], "parent") != 0;
	pid_t child = fork();
	if (child < 0)
		return 2;
	if (child == 0)
		_exit(in_child ? (int)(stamp() & 1) : 0);
	int status;
	if (waitpid(child, &status, 0) != child)
		return 3;
	if (!in_child)
		printf("%llu\n", stamp() & 1);
	return 0;
}

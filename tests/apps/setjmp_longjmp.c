/* setjmp/longjmp across frames, including from deep recursion (glibc mangles the saved
 * pointers with the pointer guard in the app's own TCB). */
#include <setjmp.h>
#include <stdio.h>

static jmp_buf env;
static int jumps;

static int dive(int depth)
{
	if (depth < 0)
		return 0;
	if (depth == 0)
		longjmp(env, ++jumps);
	return dive(depth - 1) + 1;
}

int main(void)
{
	volatile int total = 0;
	int v = setjmp(env);
	total += v;
	if (v < 100)
		dive(v * 3);
	printf("jumps=%d total=%d\n", jumps, total);
	return 0;
}

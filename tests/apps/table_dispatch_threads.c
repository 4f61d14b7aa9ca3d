/* Two threads run a bytecode interpreter whose dispatch goes through a constant table of
 * label addresses by a byte-sized opcode (built without PIE: `jmp *T(,%rax,8)`), each on
 * a program of its own; the sums they print must be the native ones, with the JIT's jumps
 * through constant tables (jit/table_jump.c) in every thread's own table. */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

struct job {
	const unsigned char *program;
	long rounds;
	uint64_t sum;
};

static uint64_t run(const unsigned char *program, long rounds)
{
	static const void *const handlers[256] = {[0] = &&end,	[1] = &&add,   [2] = &&mul,
						  [3] = &&xor_, [4] = &&shift, [5 ... 255] = &&bad};
	uint64_t acc = 1;
	for (long r = 0; r < rounds; r++) {
		const unsigned char *pc = program;
		goto *handlers[*pc++];
	add:
		acc += *pc++;
		goto *handlers[*pc++];
	mul:
		acc *= *pc++ | 1;
		goto *handlers[*pc++];
	xor_:
		acc ^= (uint64_t)*pc++ << (r & 31);
		goto *handlers[*pc++];
	shift:
		acc = acc >> 3 | acc << 61;
		goto *handlers[*pc++];
	end:
		continue;
	bad:
		abort();
	}
	return acc;
}

static void *thread_main(void *arg)
{
	struct job *j = arg;
	j->sum = run(j->program, j->rounds);
	return NULL;
}

int main(int argc, char **argv)
{
	static const unsigned char first[] = {1, 7, 2, 5, 4, 3, 9, 1, 200, 0};
	static const unsigned char second[] = {3, 1, 4, 2, 3, 1, 11, 4, 2, 250, 0};
	long rounds = argc > 1 ? atol(argv[1]) : 1000000;
	struct job jobs[2] = {{first, rounds, 0}, {second, rounds, 0}};
	pthread_t threads[2];
	for (int i = 0; i < 2; i++)
		if (pthread_create(&threads[i], NULL, thread_main, &jobs[i]))
			return 1;
	for (int i = 0; i < 2; i++)
		pthread_join(threads[i], NULL);
	printf("%016llx %016llx\n", (unsigned long long)jobs[0].sum,
	       (unsigned long long)jobs[1].sum);
	return 0;
}

/* A program whose values are known, for the value profilers (tests/vprof). Its key
 * instructions carry global labels, whose addresses it prints first:
 *   load42   a load that always reads 42 (run N times)
 *   counter  an increment whose results are 1, 2, ... N
 *   chase    the load of a pointer-chasing loop over NODES nodes, three rounds; each
 *            node's address is printed ("node 0x...") in the order of the first round
 *   stride   a load walking an array of 256 longs, 8 bytes at a time
 *   callee   a load in a function called 3 times from one site and 5 from another (the
 *            return addresses are printed: "return_a 0x...", "return_b 0x...")
 * The counter's phase lies between SSC marks 1 and 2. Usage: value_behaviour [N] */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "ssc_mark.h"

enum { NODES = 16, ROUNDS = 3, LONGS = 256 };

#define LABEL(name) ".globl " #name "\n.hidden " #name "\n" #name ":\n\t"
#define HIDDEN __attribute__((visibility("hidden")))
extern const char vp_load42[] HIDDEN, vp_counter[] HIDDEN, vp_chase[] HIDDEN, vp_stride[] HIDDEN,
    vp_callee[] HIDDEN;

static volatile long answer = 42;
static long array[LONGS];

struct node {
	struct node *next;
	long pad[7]; /* a line each */
};

/* noinline, noclone: each labelled instruction exists once. */
#define ONCE __attribute__((noinline, noclone))

static ONCE long load42(void)
{
	long v;
	__asm__ volatile(LABEL(vp_load42) "mov %1, %0" : "=r"(v) : "m"(answer));
	return v;
}

static ONCE long count(long c)
{
	__asm__ volatile(LABEL(vp_counter) "inc %0" : "+r"(c));
	return c;
}

static ONCE struct node *chase(struct node *p)
{
	struct node *next;
	__asm__ volatile(LABEL(vp_chase) "mov (%1), %0" : "=r"(next) : "r"(p) : "memory");
	return next;
}

static ONCE long load_at(const long *p)
{
	long v;
	__asm__ volatile(LABEL(vp_stride) "mov (%1), %0" : "=r"(v) : "r"(p) : "memory");
	return v;
}

static ONCE long callee(char site)
{
	long v;
	__asm__ volatile(LABEL(vp_callee) "mov %1, %0" : "=r"(v) : "m"(answer));
	printf("return_%c %p\n", site, __builtin_return_address(0));
	return v;
}

static ONCE long call_a(void)
{
	return callee('a');
}

static ONCE long call_b(void)
{
	return callee('b');
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 1000;
	printf("load42 %p\ncounter %p\nchase %p\nstride %p\ncallee %p\n", (void *)vp_load42,
	       (void *)vp_counter, (void *)vp_chase, (void *)vp_stride, (void *)vp_callee);
	long sum = 0;
	for (long i = 0; i < n; i++)
		sum += load42();
	SSC_MARK(1);
	long c = 0;
	for (long i = 0; i < n; i++)
		c = count(c);
	SSC_MARK(2);
	/* The nodes linked in a scrambled order (7 is prime to 16). */
	struct node *nodes = calloc(NODES, sizeof *nodes);
	if (!nodes)
		return 1;
	for (int i = 0; i < NODES; i++)
		nodes[i * 7 % NODES].next = i + 1 < NODES ? &nodes[(i + 1) * 7 % NODES] : NULL;
	for (struct node *p = &nodes[0]; p; p = p->next)
		printf("node %p\n", (void *)p);
	for (int r = 0; r < ROUNDS; r++)
		for (struct node *p = &nodes[0]; p; p = chase(p))
			sum++;
	for (int i = 0; i < LONGS; i++)
		sum += load_at(&array[i]);
	for (int i = 0; i < 3; i++)
		sum += call_a();
	for (int i = 0; i < 5; i++)
		sum += call_b();
	printf("sum %ld counter %ld\n", sum, c);
	free(nodes);
	return 0;
}

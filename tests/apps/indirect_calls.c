/* Indirect calls through a function-pointer table and a dense switch (a jump table). */
#include <stdio.h>

typedef unsigned (*op_fn)(unsigned, unsigned);
static unsigned op_add(unsigned a, unsigned b)
{
	return a + b;
}
static unsigned op_xor(unsigned a, unsigned b)
{
	return a ^ b;
}
static unsigned op_mul(unsigned a, unsigned b)
{
	return a * b + 1;
}
static unsigned op_rot(unsigned a, unsigned b)
{
	return (a << (b & 31)) | (a >> ((32 - b) & 31));
}

static unsigned dispatch(unsigned selector, unsigned v)
{
	switch (selector % 12) {
	case 0:
		return v + 3;
	case 1:
		return v * 7;
	case 2:
		return v ^ 0x5555;
	case 3:
		return v >> 1;
	case 4:
		return v << 2;
	case 5:
		return ~v;
	case 6:
		return v - 11;
	case 7:
		return v | 0x80;
	case 8:
		return v & 0xffff;
	case 9:
		return v * v;
	case 10:
		return v + selector;
	default:
		return v / 3 + 1;
	}
}

int main(void)
{
	static const op_fn table[] = {op_add, op_xor, op_mul, op_rot};
	unsigned acc = 1;
	for (unsigned i = 0; i < 2000000; i++) {
		acc = table[(acc ^ i) & 3](acc, i);
		acc = dispatch(acc ^ (i * 2654435761u), acc);
	}
	printf("acc=%u\n", acc);
	return (int)(acc & 0x3f);
}

/* x87 (long double), SSE scalar doubles and libm. */
#include <math.h>
#include <stdio.h>

int main(void)
{
	long double x87 = 1.0L;
	double sse = 0.0;
	float f = 1.0f;
	for (int i = 1; i <= 100000; i++) {
		x87 += 1.0L / ((long double)i * i);
		sse += sin(i * 0.001) * exp(-i * 1e-5);
		f = f * 1.0001f + 0.5f / (float)i;
	}
	printf("x87=%.15Lf sse=%.12f f=%.6f sqrt=%.17g pow=%.17g\n", x87, sse, f, sqrt(2.0),
	       pow(1.5, 30.25));
	return 0;
}

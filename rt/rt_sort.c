#include "rt_sort.h"

#include <stdint.h>

static void swap_bytes(uint8_t *a, uint8_t *b, size_t size)
{
	for (size_t i = 0; i < size; i++) {
		uint8_t x = a[i];
		a[i] = b[i];
		b[i] = x;
	}
}

static void sift_down(uint8_t *v, size_t root, size_t n, size_t size, rt_compare_fn cmp)
{
	for (size_t child; (child = 2 * root + 1) < n; root = child) {
		if (child + 1 < n && cmp(v + (child + 1) * size, v + child * size) > 0)
			child++;
		if (cmp(v + root * size, v + child * size) >= 0)
			return;
		swap_bytes(v + root * size, v + child * size, size);
	}
}

void rt_sort(void *base, size_t n, size_t size, rt_compare_fn cmp)
{
	uint8_t *v = base;
	for (size_t i = n / 2; i-- > 0;)
		sift_down(v, i, n, size, cmp);
	for (size_t end = n; end-- > 1;) {
		swap_bytes(v, v + end * size, size);
		sift_down(v, 0, end, size, cmp);
	}
}

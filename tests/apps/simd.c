/* AVX2 and AVX-512 code paths. Exits 77 (skipped) when the CPU lacks the extension. */
#include <immintrin.h>
#include <stdio.h>
#include <string.h>

__attribute__((target("avx2"))) static long sum_avx2(const int *v, int n)
{
	__m256i acc = _mm256_setzero_si256();
	for (int i = 0; i < n; i += 8)
		acc = _mm256_add_epi32(
		    acc, _mm256_mullo_epi32(_mm256_loadu_si256((const __m256i *)(v + i)),
					    _mm256_set1_epi32(3)));
	int out[8];
	_mm256_storeu_si256((__m256i *)out, acc);
	long s = 0;
	for (int i = 0; i < 8; i++)
		s += out[i];
	return s;
}

__attribute__((target("avx512f"))) static long sum_avx512(const int *v, int n)
{
	__m512i acc = _mm512_setzero_si512();
	for (int i = 0; i < n; i += 16) {
		__m512i x = _mm512_loadu_si512(v + i);
		__mmask16 odd = _mm512_test_epi32_mask(x, _mm512_set1_epi32(1));
		acc = _mm512_mask_add_epi32(acc, odd, acc, x);
	}
	return _mm512_reduce_add_epi32(acc);
}

int main(int argc, char **argv)
{
	const char *want = argc > 1 ? argv[1] : "avx2";
	static int data[1 << 16];
	for (int i = 0; i < (1 << 16); i++)
		data[i] = (i * 37) % 1001;
	if (!strcmp(want, "avx2")) {
		if (!__builtin_cpu_supports("avx2")) {
			printf("skipped: the CPU has no AVX2\n");
			return 77;
		}
		printf("avx2 sum=%ld\n", sum_avx2(data, 1 << 16));
	} else {
		if (!__builtin_cpu_supports("avx512f")) {
			printf("skipped: the CPU has no AVX-512F\n");
			return 77;
		}
		printf("avx512 sum=%ld\n", sum_avx512(data, 1 << 16));
	}
	return 0;
}

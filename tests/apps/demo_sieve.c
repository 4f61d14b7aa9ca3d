/* The bundled demo program: sieves primes, with the interesting part between SSC marks
 * so `logger -control start:ssc:11223344,stop:ssc:55667788` cuts exactly that region. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ssc_mark.h"

static unsigned count_primes(unsigned limit)
{
	unsigned char *composite = calloc(limit + 1, 1);
	if (!composite)
		return 0;
	unsigned count = 0;
	for (unsigned i = 2; i <= limit; i++) {
		if (composite[i])
			continue;
		count++;
		for (unsigned long j = (unsigned long)i * i; j <= limit; j += i)
			composite[j] = 1;
	}
	free(composite);
	return count;
}

int main(int argc, char **argv)
{
	unsigned limit = argc > 1 ? (unsigned)strtoul(argv[1], NULL, 10) : 1000000;
	printf("warm-up: %u primes below 1000\n", count_primes(1000));
	SSC_MARK(0x11223344);
	unsigned n = count_primes(limit);
	SSC_MARK(0x55667788);
	printf("region: %u primes below %u\n", n, limit);
	return 0;
}

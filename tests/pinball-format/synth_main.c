/* pinball_synth BASENAME: writes the synthetic pinball of synth.c (for script tests). */
#include <stdio.h>

#include "synth.h"

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: pinball_synth BASENAME\n");
		return 2;
	}
	char err[PINBALL_ERR_MAX];
	if (synth_write(argv[1], err) < 0) {
		fprintf(stderr, "pinball_synth: error: %s\n", err);
		return 1;
	}
	return 0;
}

#include "unit_runner.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int unit_run(const struct unit_suite *table, int argc, char **argv)
{
	SRunner *runner = NULL;
	for (const struct unit_suite *s = table; s->name; s++) {
		if (argc > 1 && strcmp(argv[1], s->name) != 0)
			continue;
		if (!runner)
			runner = srunner_create(s->make());
		else
			srunner_add_suite(runner, s->make());
	}
	if (!runner) {
		fprintf(stderr, "%s: no suite named '%s'\n", argv[0], argc > 1 ? argv[1] : "");
		return 2;
	}
	srunner_run_all(runner, CK_NORMAL);
	int failed = srunner_ntests_failed(runner);
	srunner_free(runner);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}

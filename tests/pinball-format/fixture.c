#include "fixture.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>

#include "synth.h"

char *test_dir, *test_base;

void fixture_setup(void)
{
	test_dir = synth_tmpdir();
	ck_assert_ptr_nonnull(test_dir);
	ck_assert_int_ge(asprintf(&test_base, "%s/run.0", test_dir), 0);
}

void fixture_setup_synth(void)
{
	char err[PINBALL_ERR_MAX];
	fixture_setup();
	ck_assert_msg(synth_write(test_base, err) == 0, "%s", err);
}

void fixture_teardown(void)
{
	synth_rmdir(test_dir);
	free(test_base);
	test_dir = test_base = NULL;
}

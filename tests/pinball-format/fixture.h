/* The Check fixture most suites share: a fresh directory and a pinball name in it. */
#ifndef PINBALL_FIXTURE_H
#define PINBALL_FIXTURE_H

extern char *test_dir;	/* removed with its contents by the teardown */
extern char *test_base; /* test_dir/run.0 */

void fixture_setup(void);
/* fixture_setup, then the synthetic pinball (synth.h) written at test_base. */
void fixture_setup_synth(void);
void fixture_teardown(void);

#endif

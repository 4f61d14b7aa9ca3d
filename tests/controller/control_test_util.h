/* Helpers shared by the controller suites: parse or fail, with Check assertions inside. */
#ifndef CONTROL_TEST_UTIL_H
#define CONTROL_TEST_UTIL_H

#include <check.h>

#include "control_spec.h"

/* -control values (NULL-terminated) through add_chain and finish, all expected to succeed. */
struct control_spec *parse_chains(const char *const *texts);
/* One -control value, finished; the spec's only chain is spec->chains[0]. */
struct control_spec *parse_one(const char *text);
/* The message of the first failure of add_chain or finish on `texts`; the test fails if
 * everything succeeds. Points into a static buffer. */
const char *parse_failure(const char *const *texts);
const char *parse_one_failure(const char *text);
/* The single alarm of a one-alarm chain. */
const struct control_alarm *only_alarm(const struct control_spec *spec);
/* Canonical text of chain i, in a static buffer. */
const char *chain_text(const struct control_spec *spec, size_t i);

Suite *control_grammar_suite(void);
Suite *control_examples_suite(void);
Suite *control_print_suite(void);
Suite *control_errors_suite(void);
Suite *control_legacy_suite(void);
Suite *control_bounds_suite(void);
Suite *xed_names_suite(void);

#endif

#include "control_test_util.h"
#include "unit_runner.h"

static const struct unit_suite controller_suites[] = {
    {"control_grammar", control_grammar_suite},
    {"control_examples", control_examples_suite},
    {"control_print", control_print_suite},
    {"control_errors", control_errors_suite},
    {"control_legacy", control_legacy_suite},
    {"control_bounds", control_bounds_suite},
    {"xed_names", xed_names_suite},
    {NULL, NULL},
};

int main(int argc, char **argv)
{
	return unit_run(controller_suites, argc, argv);
}

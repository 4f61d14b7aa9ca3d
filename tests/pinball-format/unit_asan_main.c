#include "pinball_tests.h"
#include "unit_runner.h"

static const struct unit_suite suites[] = {
    {"pinball_corruption", pinball_corruption_suite},
    {"pinball_roundtrip", pinball_roundtrip_suite},
    {NULL, NULL},
};

int main(int argc, char **argv)
{
	return unit_run(suites, argc, argv);
}

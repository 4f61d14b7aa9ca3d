#include "unit_runner.h"
#include "unit_suites.h"

static const struct unit_suite jit_suites[] = {
    {"app_map", app_map_suite},
    {NULL, NULL},
};

int main(int argc, char **argv)
{
	return unit_run(jit_suites, argc, argv);
}

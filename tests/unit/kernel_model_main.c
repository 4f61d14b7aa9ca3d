#include "unit_runner.h"
#include "unit_suites.h"

static const struct unit_suite kernel_model_suites[] = {
    {"syscall_model", syscall_model_suite},
    {NULL, NULL},
};

int main(int argc, char **argv)
{
	return unit_run(kernel_model_suites, argc, argv);
}

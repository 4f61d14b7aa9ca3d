#include "unit_runner.h"
#include "unit_suites.h"

static const struct unit_suite rt_suites[] = {
    {"rt_format", rt_format_suite},   {"rt_alloc", rt_alloc_suite},
    {"rt_mutex", rt_mutex_suite},     {"rt_string", rt_string_suite},
    {"rt_syscall", rt_syscall_suite}, {"rt_sort", rt_sort_suite},
    {"rt_crc32c", rt_crc32c_suite},   {NULL, NULL},
};

int main(int argc, char **argv)
{
	return unit_run(rt_suites, argc, argv);
}

/* The unit suites; each test_*.c defines one. */
#ifndef UNIT_SUITES_H
#define UNIT_SUITES_H

#include <check.h>

Suite *rt_format_suite(void);
Suite *rt_alloc_suite(void);
Suite *rt_mutex_suite(void);
Suite *rt_string_suite(void);
Suite *rt_syscall_suite(void);
Suite *rt_sort_suite(void);
Suite *rt_crc32c_suite(void);
Suite *syscall_model_suite(void);
Suite *app_map_suite(void);

#endif

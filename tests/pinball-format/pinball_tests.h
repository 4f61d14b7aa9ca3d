/* The pinball-format Check suites; each test_*.c defines one. */
#ifndef PINBALL_TESTS_H
#define PINBALL_TESTS_H

#include <check.h>

Suite *pinball_roundtrip_suite(void);
Suite *pinball_writer_errors_suite(void);
Suite *pinball_feed_suite(void);
Suite *pinball_big_suite(void);
Suite *pinball_corruption_suite(void);
Suite *pinball_versions_suite(void);
Suite *pinball_chunk_cache_suite(void);

#endif

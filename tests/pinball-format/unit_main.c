#include "pinball_tests.h"
#include "unit_runner.h"

static const struct unit_suite suites[] = {
    {"pinball_roundtrip", pinball_roundtrip_suite},
    {"pinball_writer_errors", pinball_writer_errors_suite},
    {"pinball_feed", pinball_feed_suite},
    {"pinball_big", pinball_big_suite},
    {"pinball_versions", pinball_versions_suite},
    {"pinball_chunk_cache", pinball_chunk_cache_suite},
    {NULL, NULL},
};

int main(int argc, char **argv)
{
	return unit_run(suites, argc, argv);
}

#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "jit_app.h"
#include "unit_suites.h"

struct named {
	uint64_t start;
	char path[16];
};

static int find(const struct jit_app_mapping *m, void *arg)
{
	struct named *n = arg;
	if (m->start != n->start)
		return 0;
	strncpy(n->path, m->path ? m->path : "(none)", sizeof n->path - 1);
	return 1;
}

static const char *name_at(uint64_t start, struct named *n)
{
	*n = (struct named){start, ""};
	return jit_app_map_foreach(find, n) ? n->path : "(no mapping)";
}

/* A replay's mapping names come from the pinball reader, which frees them: the map keeps
 * its own copies, bracketed names ("[heap]", "[stack]") too. */
START_TEST(names_are_copied_even_bracketed_ones)
{
	char *from_reader = strdup("[heap]");
	jit_app_map_adopt(&(struct jit_app_mapping){0x10000, 0x30000, 3, 0x22, 0, from_reader});
	memset(from_reader, 'x', strlen(from_reader));
	free(from_reader);
	struct named n;
	ck_assert_str_eq(name_at(0x10000, &n), "[heap]");
	/* cut in two, then partly replaced: each piece keeps (and frees) its own copy */
	jit_app_map_adopt(&(struct jit_app_mapping){0x18000, 0x20000, 1, 0x22, 0, "/lib/x.so"});
	ck_assert_str_eq(name_at(0x10000, &n), "[heap]");
	ck_assert_str_eq(name_at(0x18000, &n), "/lib/x.so");
	ck_assert_str_eq(name_at(0x20000, &n), "[heap]");
	jit_app_map_adopt(&(struct jit_app_mapping){0x10000, 0x30000, 3, 0x22, 0, NULL});
	ck_assert_str_eq(name_at(0x10000, &n), "(none)");
}
END_TEST

Suite *app_map_suite(void)
{
	Suite *s = suite_create("app_map");
	TCase *tc = tcase_create("core");
	tcase_add_test(tc, names_are_copied_even_bracketed_ones);
	suite_add_tcase(s, tc);
	return s;
}

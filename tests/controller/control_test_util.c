#include "control_test_util.h"

#include <stdlib.h>

struct control_spec *parse_chains(const char *const *texts)
{
	struct control_spec *spec = control_spec_new();
	struct control_error err = {0};
	ck_assert_ptr_nonnull(spec);
	for (; *texts; texts++)
		ck_assert_msg(control_spec_add_chain(spec, *texts, &err) == 0, "'%s': %s", *texts,
			      err.message);
	ck_assert_msg(control_spec_finish(spec, &err) == 0, "finish: %s", err.message);
	return spec;
}

struct control_spec *parse_one(const char *text)
{
	const char *texts[] = {text, NULL};
	struct control_spec *spec = parse_chains(texts);
	ck_assert_uint_eq(spec->nchains, 1);
	return spec;
}

const char *parse_failure(const char *const *texts)
{
	static struct control_error err;
	struct control_spec *spec = control_spec_new();
	int rc = 0;
	for (; *texts && rc == 0; texts++)
		rc = control_spec_add_chain(spec, *texts, &err);
	if (rc == 0)
		rc = control_spec_finish(spec, &err);
	control_spec_free(spec);
	ck_assert_msg(rc == -1, "parsed, but a failure was expected");
	return err.message;
}

const struct control_alarm *only_alarm(const struct control_spec *spec)
{
	ck_assert_uint_eq(spec->chains[0].nalarms, 1);
	return &spec->chains[0].alarms[0];
}

const char *parse_one_failure(const char *text)
{
	const char *texts[] = {text, NULL};
	return parse_failure(texts);
}

const char *chain_text(const struct control_spec *spec, size_t i)
{
	static char buf[1024];
	ck_assert_uint_lt(i, spec->nchains);
	size_t n = control_chain_format(&spec->chains[i], buf, sizeof(buf));
	ck_assert_uint_lt(n, sizeof(buf));
	return buf;
}

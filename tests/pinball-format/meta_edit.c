#include "meta_edit.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "part_reader.h"
#include "part_writer.h"
#include "pinball.h"

Pinball__Meta *meta_read(const char *base, uint8_t id[16])
{
	char path[600], err[PINBALL_ERR_MAX];
	snprintf(path, sizeof path, "%s.meta", base);
	struct part_reader pr;
	ck_assert_msg(part_reader_open(&pr, path, "meta", NULL, err) == 0, "%s", err);
	const uint8_t *rec;
	size_t len;
	ck_assert_int_eq(part_reader_next(&pr, &rec, &len), 1);
	Pinball__Meta *meta = pinball__meta__unpack(NULL, len, rec);
	ck_assert_ptr_nonnull(meta);
	memcpy(id, pr.id, 16);
	part_reader_close(&pr);
	return meta;
}

void meta_write(const char *base, const uint8_t id[16], const Pinball__Meta *meta)
{
	char err[PINBALL_ERR_MAX];
	struct chunk_scratch scratch = {0};
	struct part_writer pw = {.fd = -1};
	ck_assert_msg(part_writer_open(&pw, base, "meta", id, 4096, &scratch, PART_LZ4_FAST, err) ==
			  0,
		      "%s", err);
	ck_assert_int_ge(part_writer_add(&pw, &meta->base), 0);
	ck_assert_int_eq(part_writer_close(&pw), 0);
	ck_assert_int_eq(part_writer_commit(&pw), 0);
	part_writer_discard(&pw);
	chunk_scratch_free(&scratch);
}

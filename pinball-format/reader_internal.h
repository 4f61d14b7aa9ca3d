/* What pinball_reader.c, cursor.c and verify.c share. Internal. */
#ifndef PINBALL_READER_INTERNAL_H
#define PINBALL_READER_INTERNAL_H

#include "arena.h"
#include "part_reader.h"
#include "pinball.h"
#include "pinball.pb-c.h"

enum part_type { PART_THREADS, PART_MEMMAP, PART_PAGES, PART_EVENTS, PART_SCHEDULE, PART_END };

struct reader_check; /* verify.c */

struct pinball_reader {
	char *base;
	uint8_t id[PINBALL_ID_SIZE];
	Pinball__Meta *meta;
	struct arena arena; /* the header's arrays */
	struct pinball_header header;
	struct pinball_cause stop;
	struct pinball_summary summary;
	struct pinball_part_info *parts;
	enum part_type *types;
	size_t nparts;
	struct reader_check *check; /* pinball_reader_check: every record read is checked */
};

struct pinball_cursor {
	const struct pinball_reader *r;
	const struct pinball_part_info *info;
	enum part_type type;
	struct part_reader pr;
	struct arena arena; /* the current record */
	bool failed;
	char err[PINBALL_ERR_MAX];
};

/* For a checked reader (verify.c): notes a record the cursor read, or that the cursor read
 * its part to the end; NULL, or what is wrong. */
const char *reader_check_record(const struct pinball_cursor *c, const void *record);
const char *reader_check_part_end(const struct pinball_cursor *c);
void reader_check_free(struct reader_check *k);

/* The type of a part name; -1 if the name is not one the format defines. */
int part_type_of(const char *name, uint32_t *tid);

#endif

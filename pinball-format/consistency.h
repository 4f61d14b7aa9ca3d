/* What pinball_verify checks beyond the container (checksums, framing) and the summary's
 * counts: that the values agree with each other, so that a replayer may rely on them.
 * Ranges and alignment of addresses, one map entry per address, pages inside the map and
 * never twice, well-formed register images, known event kinds with values in range,
 * threads that exist, instruction counts that add up (events within a thread's count, the
 * schedule's slices summing to it). A replayer adds what depends on its own machine. */
#ifndef PINBALL_CONSISTENCY_H
#define PINBALL_CONSISTENCY_H

#include <stdbool.h>
#include <stdint.h>

#include "pinball.h"

struct consistency;

/* NULL when out of memory. */
struct consistency *consistency_new(const struct pinball_header *h);
void consistency_free(struct consistency *c);

/* Each returns NULL, or what is wrong with the record (a static string or one kept in c).
 * The memory map comes first: pages are checked against it. */
const char *consistency_map(struct consistency *c, const struct pinball_map_entry *m);
const char *consistency_thread(struct consistency *c, const struct pinball_thread *t, bool end);
const char *consistency_page(struct consistency *c, const struct pinball_page *p);
const char *consistency_event(struct consistency *c, uint32_t tid, const struct pinball_event *e);
const char *consistency_slice(struct consistency *c, const struct pinball_slice *s);

/* After the memory map's last entry: that no two overlap (a replayer maps each as it comes
 * only once the whole map passed). */
const char *consistency_map_end(struct consistency *c);

/* After every record: the checks across parts. */
const char *consistency_finish(struct consistency *c);

#endif

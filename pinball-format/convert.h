/* Between the public C records (pinball.h) and the protobuf-c messages (pinball.proto).
 * Internal. Arrays and sub-messages are allocated from the arena; strings and byte arrays
 * are shared, not copied. The *_from_pb functions check what the schema cannot (register
 * counts, page sizes, known kinds) and return a reason string, or NULL when acceptable. */
#ifndef PINBALL_CONVERT_H
#define PINBALL_CONVERT_H

#include "arena.h"
#include "pinball.h"
#include "pinball.pb-c.h"

Pinball__Header *header_to_pb(const struct pinball_header *h, struct arena *a);
Pinball__Cause *cause_to_pb(const struct pinball_cause *c, struct arena *a);
Pinball__Thread *thread_to_pb(const struct pinball_thread *t, struct arena *a);
Pinball__MapEntry *map_to_pb(const struct pinball_map_entry *m, struct arena *a);
Pinball__Event *event_to_pb(const struct pinball_event *e, struct arena *a);
Pinball__Summary *summary_to_pb(const struct pinball_summary *s, struct arena *a);

const char *header_from_pb(const Pinball__Header *ph, struct pinball_header *h, struct arena *a);
void cause_from_pb(const Pinball__Cause *pc, struct pinball_cause *c);
const char *thread_from_pb(const Pinball__Thread *pt, struct pinball_thread *t);
void map_from_pb(const Pinball__MapEntry *pm, struct pinball_map_entry *m);
const char *page_from_pb(const Pinball__Page *pp, uint32_t page_size, struct pinball_page *p);
const char *event_from_pb(const Pinball__Event *pe, struct pinball_event *e, struct arena *a);
void summary_from_pb(const Pinball__Summary *ps, struct pinball_summary *s);

#endif

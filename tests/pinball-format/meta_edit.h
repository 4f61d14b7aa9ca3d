/* Tests that rewrite a pinball's P.meta (another version, other part sizes). */
#ifndef PINBALL_META_EDIT_H
#define PINBALL_META_EDIT_H

#include <stdint.h>

#include "pinball.pb-c.h"

/* P.meta of the pinball `base`, unpacked (pinball__meta__free_unpacked), and its id. */
Pinball__Meta *meta_read(const char *base, uint8_t id[16]);
/* Writes `meta` as base's P.meta, an LZ4 part (as every part of a 1.x writer). */
void meta_write(const char *base, const uint8_t id[16], const Pinball__Meta *meta);

#endif

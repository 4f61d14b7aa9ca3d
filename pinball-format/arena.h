/* A bump allocator for decoding one record at a time: protobuf-c allocates from it, and
 * arena_reset releases everything at once. Memory stays bounded by the largest record. */
#ifndef PINBALL_ARENA_H
#define PINBALL_ARENA_H

#include <protobuf-c/protobuf-c.h>
#include <stddef.h>

struct arena_block;

struct arena {
	struct arena_block *head; /* current block first */
	ProtobufCAllocator pb;	  /* allocates from this arena; frees nothing */
};

void arena_init(struct arena *a);
void *arena_alloc(struct arena *a, size_t size);
/* Forgets every allocation, keeping the largest block for reuse. */
void arena_reset(struct arena *a);
void arena_destroy(struct arena *a);

#endif

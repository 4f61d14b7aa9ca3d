#include "arena.h"

#include <stdint.h>
#include <stdlib.h>

#define ARENA_MIN_BLOCK (64u << 10)

struct arena_block {
	struct arena_block *next;
	size_t size, used;
	_Alignas(16) unsigned char data[];
};

static void *pb_alloc(void *data, size_t size)
{
	return arena_alloc(data, size);
}
static void pb_free(void *data, void *ptr)
{
	(void)data;
	(void)ptr;
}

void arena_init(struct arena *a)
{
	a->head = NULL;
	a->pb.alloc = pb_alloc;
	a->pb.free = pb_free;
	a->pb.allocator_data = a;
}

void *arena_alloc(struct arena *a, size_t size)
{
	size = (size + 15) & ~(size_t)15;
	struct arena_block *b = a->head;
	if (!b || b->size - b->used < size) {
		size_t want = b ? b->size * 2 : ARENA_MIN_BLOCK;
		if (want < size)
			want = size;
		b = malloc(sizeof *b + want);
		if (!b)
			return NULL;
		b->size = want;
		b->used = 0;
		b->next = a->head;
		a->head = b;
	}
	void *p = b->data + b->used;
	b->used += size;
	return p;
}

void arena_reset(struct arena *a)
{
	struct arena_block *keep = a->head; /* the newest block is the largest */
	if (!keep)
		return;
	struct arena_block *b = keep->next;
	while (b) {
		struct arena_block *next = b->next;
		free(b);
		b = next;
	}
	keep->next = NULL;
	keep->used = 0;
}

void arena_destroy(struct arena *a)
{
	arena_reset(a);
	free(a->head);
	a->head = NULL;
}

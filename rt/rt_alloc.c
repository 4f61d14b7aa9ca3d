#include "rt_alloc.h"

#include <stdint.h>
#include <string.h>
#include <sys/mman.h>

#include "rt_mutex.h"
#include "rt_syscall.h"

enum {
	HEADER_SIZE = 16,
	MIN_CLASS_SHIFT = 4, /* 16-byte blocks */
	/* ... up to 16 KiB blocks: a recorded page (4 KiB and its record's header) is one,
	 * and recording moves thousands through the writer's queue; as a mapping of its own,
	 * each cost an mmap on the app's thread and an munmap on the writer's, with the TLB
	 * shootdown that interrupts the app's CPU (about 50 us each in a VM). */
	CLASS_COUNT = 11,
	SLAB_SIZE = 64 * 1024,
	LARGE_CLASS = 0xff,
	PAGE = 4096,
};

/* Sits just before every block: which class it belongs to, or its mapping length. */
struct header {
	uint32_t magic;
	uint32_t size_class;
	uint64_t mapping_len;
};
_Static_assert(sizeof(struct header) == HEADER_SIZE, "header keeps blocks 16-aligned");

#define HEADER_MAGIC 0x52544131u /* "RTA1" */

struct free_block {
	struct free_block *next;
};

struct size_class {
	rt_mutex lock;
	struct free_block *free_list;
	char *bump; /* unused tail of the newest slab */
	char *bump_end;
};

static struct size_class classes[CLASS_COUNT];

static size_t class_block_size(unsigned c)
{
	return (size_t)1 << (c + MIN_CLASS_SHIFT);
}

static int class_for(size_t total)
{
	for (unsigned c = 0; c < CLASS_COUNT; c++)
		if (total <= class_block_size(c))
			return (int)c;
	return -1;
}

static void *map_anonymous(size_t len)
{
	long addr = rt_mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	return rt_is_error(addr) ? NULL : (void *)addr;
}

/* A block of sc's size: a freed one, or the next of its newest slab. NULL: no memory. */
static void *take_block(struct size_class *sc, size_t block)
{
	void *p = NULL;
	rt_mutex_lock(&sc->lock);
	if (sc->free_list) {
		p = sc->free_list;
		sc->free_list = sc->free_list->next;
	} else {
		if ((size_t)(sc->bump_end - sc->bump) < block) {
			char *slab = map_anonymous(SLAB_SIZE);
			if (slab) {
				sc->bump = slab;
				sc->bump_end = slab + SLAB_SIZE;
			}
		}
		if ((size_t)(sc->bump_end - sc->bump) >= block) {
			p = sc->bump;
			sc->bump += block;
		}
	}
	rt_mutex_unlock(&sc->lock);
	return p;
}

static void give_block(struct size_class *sc, void *block)
{
	struct free_block *fb = block;
	rt_mutex_lock(&sc->lock);
	fb->next = sc->free_list;
	sc->free_list = fb;
	rt_mutex_unlock(&sc->lock);
}

static struct header *take_small(unsigned c)
{
	struct header *h = take_block(&classes[c], class_block_size(c));
	if (h) {
		h->magic = HEADER_MAGIC;
		h->size_class = c;
		h->mapping_len = 0;
	}
	return h;
}

static struct header *take_large(size_t total)
{
	size_t len = (total + PAGE - 1) & ~(size_t)(PAGE - 1);
	if (len < total)
		return NULL;
	struct header *h = map_anonymous(len);
	if (h) {
		h->magic = HEADER_MAGIC;
		h->size_class = LARGE_CLASS;
		h->mapping_len = len;
	}
	return h;
}

void *rt_alloc(size_t size)
{
	size_t total = size + HEADER_SIZE;
	if (total < size)
		return NULL;
	int c = class_for(total);
	struct header *h = c >= 0 ? take_small((unsigned)c) : take_large(total);
	return h ? (char *)h + HEADER_SIZE : NULL;
}

static struct header *header_of(const void *block)
{
	return (struct header *)((char *)block - HEADER_SIZE);
}

size_t rt_alloc_usable_size(const void *block)
{
	const struct header *h = header_of(block);
	if (h->size_class == LARGE_CLASS)
		return h->mapping_len - HEADER_SIZE;
	return class_block_size(h->size_class) - HEADER_SIZE;
}

void rt_free(void *block)
{
	if (!block)
		return;
	struct header *h = header_of(block);
	if (h->magic != HEADER_MAGIC)
		__builtin_trap(); /* not ours, or freed twice: fail loudly, never corrupt */
	h->magic = 0;
	if (h->size_class == LARGE_CLASS) {
		rt_munmap(h, h->mapping_len);
		return;
	}
	give_block(&classes[h->size_class], h);
}

void *rt_calloc(size_t count, size_t size)
{
	size_t total;
	if (__builtin_mul_overflow(count, size, &total))
		return NULL;
	void *p = rt_alloc(total);
	if (p)
		memset(p, 0, total);
	return p;
}

void *rt_realloc(void *block, size_t size)
{
	if (!block)
		return rt_alloc(size);
	size_t old = rt_alloc_usable_size(block);
	if (size <= old)
		return block;
	void *fresh = rt_alloc(size);
	if (fresh) {
		memcpy(fresh, block, old);
		rt_free(block);
	}
	return fresh;
}

static struct size_class pages; /* headerless: slabs are page-aligned, blocks a page */

void *rt_alloc_page(void)
{
	return take_block(&pages, PAGE);
}

void rt_free_page(void *page)
{
	if (page)
		give_block(&pages, page);
}

char *rt_strdup(const char *s)
{
	size_t n = strlen(s) + 1;
	char *p = rt_alloc(n);
	if (p)
		memcpy(p, s, n);
	return p;
}

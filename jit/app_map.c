#include "app_map.h"

#include <string.h>
#include <sys/mman.h>

#include "block.h"
#include "rt_alloc.h"
#include "rt_mutex.h"

/* A sorted array of non-overlapping mappings; small (a program has hundreds at most). */
static struct jit_app_mapping *maps;
static size_t count, cap;
static rt_mutex lock;

/* Ranges unmapped since the start (jit_app_map_retired_foreach): sorted, disjoint, at most
 * RETIRED_MAX (when full, the two closest merge, with the gap between them). */
enum { RETIRED_MAX = 256 };
static struct {
	uint64_t start, end;
} retired[RETIRED_MAX];
static size_t retired_count;

static void retire(uint64_t start, uint64_t end)
{
	size_t i = 0;
	while (i < retired_count && retired[i].end < start)
		i++;
	size_t j = i; /* [i, j): the ranges that touch [start, end) */
	while (j < retired_count && retired[j].start <= end) {
		start = retired[j].start < start ? retired[j].start : start;
		end = retired[j].end > end ? retired[j].end : end;
		j++;
	}
	memmove(&retired[i + 1], &retired[j], (retired_count - j) * sizeof retired[0]);
	retired_count -= j - i - 1;
	retired[i].start = start;
	retired[i].end = end;
	if (retired_count < RETIRED_MAX)
		return;
	size_t closest = 0;
	for (size_t k = 1; k + 1 < retired_count; k++)
		if (retired[k + 1].start - retired[k].end <
		    retired[closest + 1].start - retired[closest].end)
			closest = k;
	retired[closest].end = retired[closest + 1].end;
	memmove(&retired[closest + 1], &retired[closest + 2],
		(retired_count - closest - 2) * sizeof retired[0]);
	retired_count--;
}

static bool grow(size_t need)
{
	if (need <= cap)
		return true;
	size_t ncap = cap ? cap * 2 : 64;
	while (ncap < need)
		ncap *= 2;
	struct jit_app_mapping *n = rt_realloc(maps, ncap * sizeof *n);
	if (!n)
		return false;
	maps = n;
	cap = ncap;
	return true;
}

static void drop_path(struct jit_app_mapping *m)
{
	rt_free((char *)m->path);
	m->path = NULL;
}

/* Every name is copied, "[heap]" and the like too: a replay's come from the pinball, in
 * memory its reader frees. */
static const char *copy_path(const char *path)
{
	return path ? rt_strdup(path) : NULL;
}

/* Cuts [start, end) out of every mapping, splitting where needed. */
static void cut(uint64_t start, uint64_t end)
{
	for (size_t i = 0; i < count; i++) {
		struct jit_app_mapping *m = &maps[i];
		if (m->end <= start || m->start >= end)
			continue;
		if (m->start < start && m->end > end) { /* split in two */
			if (!grow(count + 1))
				return;
			m = &maps[i];
			memmove(&maps[i + 1], &maps[i], (count - i) * sizeof *maps);
			count++;
			maps[i + 1].start = end;
			maps[i + 1].offset += end - m->start;
			maps[i + 1].path = copy_path(m->path);
			m->end = start;
			i++;
		} else if (m->start < start) {
			m->end = start;
		} else if (m->end > end) {
			m->offset += end - m->start;
			m->start = end;
		} else { /* entirely inside: remove */
			drop_path(m);
			memmove(&maps[i], &maps[i + 1], (count - i - 1) * sizeof *maps);
			count--;
			i--;
		}
	}
}

static void insert(const struct jit_app_mapping *m)
{
	if (!grow(count + 1))
		return;
	size_t i = 0;
	while (i < count && maps[i].start < m->start)
		i++;
	memmove(&maps[i + 1], &maps[i], (count - i) * sizeof *maps);
	maps[i] = *m;
	maps[i].path = copy_path(m->path);
	count++;
}

void app_map_add(uint64_t start, uint64_t end, uint32_t prot, uint32_t flags, uint64_t offset,
		 const char *path)
{
	rt_mutex_lock(&lock);
	cut(start, end);
	struct jit_app_mapping m = {start, end, prot, flags, offset, path};
	insert(&m);
	rt_mutex_unlock(&lock);
}

void app_map_remove(uint64_t start, uint64_t end)
{
	rt_mutex_lock(&lock);
	retire(start, end);
	cut(start, end);
	rt_mutex_unlock(&lock);
}

void app_map_protect(uint64_t start, uint64_t end, uint32_t prot)
{
	rt_mutex_lock(&lock);
	/* Split at the edges, then set the protection of everything inside. */
	struct jit_app_mapping *inside = rt_alloc((count + 1) * sizeof *inside);
	size_t n = 0;
	for (size_t i = 0; inside && i < count; i++) {
		const struct jit_app_mapping *m = &maps[i];
		if (m->end <= start || m->start >= end)
			continue;
		inside[n] = *m;
		inside[n].start = m->start > start ? m->start : start;
		inside[n].end = m->end < end ? m->end : end;
		inside[n].offset = m->offset + (inside[n].start - m->start);
		inside[n].prot = prot;
		inside[n].path = copy_path(m->path);
		n++;
	}
	cut(start, end);
	for (size_t i = 0; i < n; i++) {
		insert(&inside[i]);
		drop_path(&inside[i]);
	}
	rt_free(inside);
	rt_mutex_unlock(&lock);
}

void app_map_move(uint64_t old_start, uint64_t old_len, uint64_t new_start, uint64_t new_len)
{
	rt_mutex_lock(&lock);
	struct jit_app_mapping moved = {0};
	for (size_t i = 0; i < count; i++) {
		if (maps[i].start <= old_start && old_start < maps[i].end) {
			moved = maps[i];
			moved.path = copy_path(maps[i].path);
			break;
		}
	}
	retire(old_start, old_start + old_len);
	cut(old_start, old_start + old_len);
	if (moved.end) {
		moved.offset += old_start - moved.start;
		moved.start = new_start;
		moved.end = new_start + new_len;
		cut(moved.start, moved.end);
		insert(&moved);
		drop_path(&moved);
	}
	rt_mutex_unlock(&lock);
}

/* The mapping that holds addr, or NULL (the maps are in address order). Under the lock. */
static const struct jit_app_mapping *holding(uint64_t addr)
{
	size_t lo = 0, hi = count; /* the first mapping that ends above addr */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (maps[mid].end <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < count && maps[lo].start <= addr ? &maps[lo] : NULL;
}

bool app_map_constant(uint64_t start, uint64_t len)
{
	uint64_t end = start + len;
	if (end < start)
		return false;
	rt_mutex_lock(&lock);
	const struct jit_app_mapping *m = holding(start);
	bool constant = m && end <= m->end && (m->flags & MAP_PRIVATE) && (m->prot & PROT_READ) &&
			!(m->prot & PROT_WRITE);
	rt_mutex_unlock(&lock);
	return constant;
}

bool app_map_prot_of(uint64_t addr, uint32_t *prot)
{
	rt_mutex_lock(&lock);
	const struct jit_app_mapping *m = holding(addr);
	if (m)
		*prot = m->prot;
	rt_mutex_unlock(&lock);
	return m != NULL;
}

int jit_app_map_foreach(int (*fn)(const struct jit_app_mapping *m, void *arg), void *arg)
{
	rt_mutex_lock(&lock);
	int r = 0;
	for (size_t i = 0; i < count && !r; i++)
		r = fn(&maps[i], arg);
	rt_mutex_unlock(&lock);
	return r;
}

int jit_app_map_retired_foreach(int (*fn)(uint64_t start, uint64_t end, void *arg), void *arg)
{
	rt_mutex_lock(&lock);
	int r = 0;
	for (size_t i = 0; i < retired_count && !r; i++)
		r = fn(retired[i].start, retired[i].end, arg);
	rt_mutex_unlock(&lock);
	return r;
}

/* Once the app runs, adopted images are announced as they come; before, all at its start. */
static bool app_running;

void jit_app_map_adopt(const struct jit_app_mapping *m)
{
	app_map_add(m->start, m->end, m->prot, m->flags, m->offset, m->path);
	if (app_running && m->path && (m->prot & PROT_EXEC))
		instrument_image_mapped(m->path, m->start, m->end, m->offset);
}

void app_map_announce_images(void)
{
	/* A copy: the clients' hooks may walk the map themselves (its lock is not recursive). */
	rt_mutex_lock(&lock);
	size_t n = 0;
	struct jit_app_mapping *images = rt_alloc((count + 1) * sizeof *images);
	for (size_t i = 0; images && i < count; i++) {
		if (!maps[i].path || !(maps[i].prot & PROT_EXEC))
			continue;
		images[n] = maps[i];
		images[n].path = rt_strdup(maps[i].path);
		if (images[n].path)
			n++;
	}
	rt_mutex_unlock(&lock);
	for (size_t i = 0; i < n; i++) {
		instrument_image_mapped(images[i].path, images[i].start, images[i].end,
					images[i].offset);
		rt_free((void *)images[i].path);
	}
	rt_free(images);
	app_running = true;
}

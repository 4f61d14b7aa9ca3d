#include "flush.h"

#include "code_cache.h"
#include "forked_code.h"
#include "fragment.h"
#include "persist.h"
#include "threads.h"
#include "translate.h"
#include "world.h"

static void clear_lookup_tables(void)
{
	for (size_t i = 0; i < threads_count(); i++)
		thread_clear_ibl(threads_at(i));
	for (size_t i = 0; i < threads_vfork_slots(); i++)
		if (threads_vfork_child_at(i))
			thread_clear_ibl(threads_vfork_child_at(i));
}

void jit_flush_cache(void)
{
	forked_code_forget();
	fragment_retire_all();
	clear_lookup_tables();
	translate_stats.flushes++;
}

static bool by_pcs_seen;

bool flush_by_pcs_seen(void)
{
	return by_pcs_seen;
}

void jit_flush_pcs(const uint64_t *pcs, size_t n)
{
	by_pcs_seen = true;
	if (fragment_retire_holding(pcs, n)) {
		clear_lookup_tables();
		translate_stats.partial_flushes++;
	}
}

void jit_reset_cache(void)
{
	/* Other threads may be running translations (outside a region they run in parallel),
	 * or wait in a callout to resume inside one: they must be out of the cache first, and
	 * come back through fresh translations (fragment_reclaim counts as a retirement). */
	world_stop(NULL);
	jit_reset_cache_alone();
}

void jit_reset_cache_alone(void)
{
	forked_code_forget();
	fragment_reclaim();
	code_cache_reset();
	persist_cache_reset();
	clear_lookup_tables();
	translate_stats.flushes++;
}

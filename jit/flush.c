#include "flush.h"

#include "code_cache.h"
#include "fragment.h"
#include "threads.h"
#include "translate.h"

void jit_flush_cache(void)
{
	fragment_flush_all();
	code_cache_reset();
	for (size_t i = 0; i < threads_count(); i++)
		thread_clear_ibl(threads_at(i));
	translate_stats.flushes++;
}

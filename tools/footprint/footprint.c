#include "footprint.h"

#include <sys/mman.h>

#include "block_counts.h"
#include "footprint_internal.h"
#include "jit_messages.h"
#include "report.h"
#include "rt_format.h"
#include "rt_syscall.h"

int footprint_slot = -1;
uint8_t *footprint_lines;
static uint8_t *discard;
static const char *output;

void footprint_mark(uint8_t *map, uint64_t lo, uint64_t hi, bool write)
{
	const uint64_t mask = (1ull << FOOTPRINT_ADDRESS_BITS) - 1;
	if (hi <= lo)
		return;
	for (uint64_t line = (lo & mask) >> 6; line <= ((hi - 1) & mask) >> 6; line++)
		__atomic_store_n(&map[2 * line + write], 1, __ATOMIC_RELAXED);
}

static void instrument(struct jit_block *b, void *arg)
{
	(void)arg;
	for (size_t i = 0; i < jit_block_length(b); i++) {
		const ZydisDecodedInstruction *insn = jit_block_insn(b, i);
		if (jit_insn_is_rep_string(insn))
			jit_insert_callout(b, i, footprint_rep_string, footprint_string_arg(insn));
		else
			jit_insert_memory_marks(b, i, footprint_slot);
	}
}

static void point_map(struct jit_thread *t)
{
	bool inside = block_counts_inside(jit_thread_id(t));
	jit_thread_slot_set(t, footprint_slot, (uint64_t)(inside ? footprint_lines : discard));
}

static void thread_start(struct jit_thread *t, uint64_t pc, void *arg)
{
	(void)pc;
	(void)arg;
	point_map(t);
}

void footprint_tool_event(const struct control_event_info *ev)
{
	if (!ev->bcast) {
		point_map(ev->thread);
		return;
	}
	for (size_t i = 0; i < jit_thread_count(); i++)
		point_map(jit_thread_at(i));
}

static void report(int status, void *arg)
{
	(void)status;
	(void)arg;
	report_write(output, footprint_report);
}

static const struct jit_client client = {
    .name = "footprint",
    .instrument_block = instrument,
    .thread_start = thread_start,
    .at_exit = report,
};

static uint8_t *reserve_maps(void)
{
	long r = rt_mmap(NULL, FOOTPRINT_MAPS_BYTES, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (rt_is_error(r))
		return NULL;
	rt_syscall3(SYS_madvise, r, (long)FOOTPRINT_MAPS_BYTES, MADV_DONTDUMP);
	return (uint8_t *)r;
}

int footprint_tool_register(const char *output_path, char *err, size_t errlen)
{
	output = output_path;
	if (block_counts_register(err, errlen))
		return -1;
	footprint_slot = jit_thread_slot_reserve();
	if (footprint_slot < 0) {
		rt_format(err, errlen, "no per-thread counter left for -footprint");
		return -1;
	}
	footprint_lines = reserve_maps();
	if (!footprint_lines) {
		rt_format(err, errlen,
			  "-footprint: cannot reserve %llu GiB of address space for its maps",
			  FOOTPRINT_MAPS_BYTES >> 30);
		return -1;
	}
	discard = footprint_lines + FOOTPRINT_MAP_BYTES;
	jit_register_client(&client);
	return 0;
}

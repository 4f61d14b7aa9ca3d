/* How many times each thread ran each distinct basic block inside its regions: the
 * shared ground of the -mix and -footprint analysis tools.
 *
 * Every translated block gets a record (the same record again when identical code is
 * translated again) and an entry in per-thread tables of counters, incremented inline
 * at block start. A thread outside its region counts into a table nobody reads. Region
 * transitions follow the seed's per-thread policy (start and stop apply to the triggering
 * thread where it is, to every thread when broadcast) and are exact to the instruction on
 * the triggering thread: the part of its current block after the event is moved between
 * the tables. A REP string instruction has a record of its own, counted per iteration,
 * like -icount counts it. Runs on app threads: TLS-free. */
#ifndef TOOL_BLOCK_COUNTS_H
#define TOOL_BLOCK_COUNTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <Zydis/Zydis.h>

#include "control_engine.h"

struct counted_insn {
	uint16_t mnemonic; /* ZydisMnemonic */
	uint8_t category;  /* ZydisInstructionCategory */
	uint8_t isa_ext;   /* ZydisISAExt */
	uint8_t rep;	   /* a REP string instruction's prefix: 1 REP, 2 REPE, 3 REPNE; else 0 */
	uint8_t length;	   /* bytes */
	uint16_t offset;   /* from the record's pc */
	uint8_t mem_reads, mem_writes; /* memory operands it reads and writes (insn_facts.h) */
};

struct counted_block {
	uint64_t pc;
	uint32_t bytes; /* from pc to the end of the last instruction */
	uint32_t ninsns;
	const struct counted_insn *insns;
};

/* The most block records (record indexes are below it). */
#define BLOCK_COUNTS_MAX_RECORDS (1u << 22)

/* Before the app starts (driver thread). Returns 0, or -1 with the reason in err. */
int block_counts_register(char *err, size_t errlen);

/* A controller event (forwarded by the driver, on the triggering thread). */
void block_counts_event(const struct control_event_info *ev);

/* Called for the records a thread ran inside its regions: instructions [first, end) of
 * `b` ran `times` times (> 0) there. */
typedef void (*block_counts_visitor)(const struct counted_block *b, uint32_t first, uint32_t end,
				     uint64_t times, void *arg);

/* The thread's counts so far, record by record in index order (at exit with the world
 * still, or from a callout on that thread). fn runs under the counts' lock. */
void block_counts_for_thread(uint32_t tid, block_counts_visitor fn, void *arg);

/* A record's index (from 1; the same code always has the same record). */
uint32_t block_counts_record_index(const struct counted_block *b);

/* Whether the thread is inside its region now. */
bool block_counts_inside(uint32_t tid);

/* Threads whose blocks could not be counted (beyond the tool's limit), and blocks whose
 * records did not fit: reported by the tools so a gap is never silent. */
uint32_t block_counts_threads_dropped(void);
uint64_t block_counts_blocks_dropped(void);

#endif

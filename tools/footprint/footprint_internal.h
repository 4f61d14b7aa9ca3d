/* Inside the -footprint tool: the map of lines, shared by its parts. */
#ifndef TOOL_FOOTPRINT_INTERNAL_H
#define TOOL_FOOTPRINT_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include "instrument.h"

/* Two bytes per 64-byte line of the 47-bit address space (read, write), as
 * jit_insert_memory_marks lays them out. */
#define FOOTPRINT_ADDRESS_BITS 47
#define FOOTPRINT_MAP_BYTES (1ull << (FOOTPRINT_ADDRESS_BITS - 6 + 1))
/* The map, then the discard (marked by threads outside their regions, never read). */
#define FOOTPRINT_MAPS_BYTES (2 * FOOTPRINT_MAP_BYTES)

extern int footprint_slot; /* holds the map a thread marks: the real one or the discard */
extern uint8_t *footprint_lines;

/* Marks the lines of [lo, hi) in the map. */
void footprint_mark(uint8_t *map, uint64_t lo, uint64_t hi, bool write);

/* The callout before a REP string instruction: marks the lines its iterations touch.
 * arg: footprint_string_arg of the instruction. */
void footprint_rep_string(const struct jit_callout *c);
void *footprint_string_arg(const ZydisDecodedInstruction *insn);

/* Writes the report (at exit, world still). */
void footprint_report(int fd);

#endif

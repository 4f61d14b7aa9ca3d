#ifndef JIT_CONSTANT_SLOT_H
#define JIT_CONSTANT_SLOT_H

#include <stdbool.h>
#include <stdint.h>

#include "block.h"

/* The target of `jmp/call *disp(%rip)` whose slot the app cannot change without a system
 * call the runtime sees: in a private mapping it may not write (a GOT once relocated, under
 * RELRO: a library bound at load time calls its own exported functions through one). The
 * branch then goes where the slot says as a direct one, linked, instead of through the
 * lookup; the slot's page counts as translated code, so that remapping it, unmapping it or
 * making it writable retires the translations (app_memory.c). */
bool constant_slot_target(const struct block_insn *bi, uint64_t *slot, uint64_t *target);
/* The slot's address, when bi's first operand is such a 64-bit RIP-relative one (nothing
 * read or relied on yet). */
bool constant_slot_address(const struct block_insn *bi, uint64_t *slot);

/* Whether [start, start + len) lies in one private mapping that the app may read and not
 * write (it cannot change without mprotect, mmap, munmap or mremap, which the runtime sees). */
bool constant_range(uint64_t start, uint64_t len);

/* Whether the slot is still constant and holds `target` (a translation made in another
 * process relied on it: persist.h); the same dependency then. */
bool constant_slot_still(uint64_t slot, uint64_t target);

#endif

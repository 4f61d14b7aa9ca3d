/* Which processor this is, for choices that depend on its maker's guarantees or on how
 * fast it runs an instruction. */
#ifndef JIT_CPU_ID_H
#define JIT_CPU_ID_H

#include <stdbool.h>
#include <stdint.h>

/* Leaf and subleaf's eax, ebx, ecx, edx through the run's table (cpuid_table.h), or false
 * when the CPU has no such leaf. */
bool cpu_id_leaf(uint32_t leaf, uint32_t subleaf, uint32_t out[4]);

bool cpu_is_intel(void);
bool cpu_is_amd(void);
/* The family, extended family included (0x19: Zen 3 and 4). */
unsigned cpu_family(void);
/* BMI2 (rorx, shlx, shrx, pext...: CPUID leaf 7). */
bool cpu_has_bmi2(void);

#endif

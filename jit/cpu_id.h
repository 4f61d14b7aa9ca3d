/* Which processor this is, for choices that depend on its maker's guarantees or on how
 * fast it runs an instruction. */
#ifndef JIT_CPU_ID_H
#define JIT_CPU_ID_H

#include <stdbool.h>

bool cpu_is_intel(void);
bool cpu_is_amd(void);
/* The family, extended family included (0x19: Zen 3 and 4). */
unsigned cpu_family(void);
/* BMI2 (rorx, shlx, shrx, pext...: CPUID leaf 7). */
bool cpu_has_bmi2(void);

#endif

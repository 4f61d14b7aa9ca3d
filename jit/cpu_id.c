#include "cpu_id.h"

#include <cpuid.h>

enum vendor { UNKNOWN, INTEL, AMD, OTHER };

static enum vendor vendor = UNKNOWN;
static unsigned family;
static bool bmi2;

static void identify(void)
{
	unsigned eax, ebx, ecx, edx;
	vendor = OTHER;
	if (!__get_cpuid(0, &eax, &ebx, &ecx, &edx))
		return;
	if (ebx == 0x756e6547 && edx == 0x49656e69 && ecx == 0x6c65746e) /* GenuineIntel */
		vendor = INTEL;
	if (ebx == 0x68747541 && edx == 0x69746e65 && ecx == 0x444d4163) /* AuthenticAMD */
		vendor = AMD;
	if (__get_cpuid(1, &eax, &ebx, &ecx, &edx))
		family = ((eax >> 8) & 0xf) + ((eax >> 20) & 0xff);
	bmi2 = __get_cpuid_count(7, 0, &eax, &ebx, &ecx, &edx) && (ebx & (1u << 8));
}

bool cpu_is_intel(void)
{
	if (vendor == UNKNOWN)
		identify();
	return vendor == INTEL;
}

bool cpu_is_amd(void)
{
	if (vendor == UNKNOWN)
		identify();
	return vendor == AMD;
}

unsigned cpu_family(void)
{
	if (vendor == UNKNOWN)
		identify();
	return family;
}

bool cpu_has_bmi2(void)
{
	if (vendor == UNKNOWN)
		identify();
	return bmi2;
}

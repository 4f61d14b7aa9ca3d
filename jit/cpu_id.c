#include "cpu_id.h"

#include "instrument.h"

enum vendor { UNKNOWN, INTEL, AMD, OTHER };

static enum vendor vendor = UNKNOWN;
static unsigned family;
static bool bmi2;

bool cpu_id_leaf(uint32_t leaf, uint32_t subleaf, uint32_t out[4])
{
	uint32_t max[4];
	jit_cpuid(leaf & 0x80000000u, 0, max);
	if (max[0] < leaf)
		return false;
	jit_cpuid(leaf, subleaf, out);
	return true;
}

static void identify(void)
{
	uint32_t r[4]; /* eax, ebx, ecx, edx */
	vendor = OTHER;
	if (!cpu_id_leaf(0, 0, r))
		return;
	if (r[1] == 0x756e6547 && r[3] == 0x49656e69 && r[2] == 0x6c65746e) /* GenuineIntel */
		vendor = INTEL;
	if (r[1] == 0x68747541 && r[3] == 0x69746e65 && r[2] == 0x444d4163) /* AuthenticAMD */
		vendor = AMD;
	if (cpu_id_leaf(1, 0, r))
		family = ((r[0] >> 8) & 0xf) + ((r[0] >> 20) & 0xff);
	bmi2 = cpu_id_leaf(7, 0, r) && (r[1] & (1u << 8));
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

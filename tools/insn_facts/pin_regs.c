/* Zydis registers in Pin's REG numbering (Intel64, as ChampSim's Pin tracer writes them).
 * Pin numbers each width of a general-purpose register separately (AL, AX, EAX and RAX are
 * four registers to it); so do we, as the tracer's traces do. */
#include "insn_facts.h"

/* Indexed by the hardware number (rax rcx rdx rbx rsp rbp rsi rdi r8..r15). */
static const uint8_t gpr64[16] = {10, 9, 8, 7, 6, 5, 4, 3, 11, 12, 13, 14, 15, 16, 17, 18};
static const uint8_t gpr32[8] = {56, 55, 54, 53, 51, 49, 47, 45};
static const uint8_t gpr16[8] = {29, 32, 35, 38, 42, 39, 40, 41};
static const uint8_t gpr8[8] = {27, 30, 33, 36, 52, 50, 48, 46}; /* al cl dl bl spl bpl sil dil */

/* r8..r15 come in threes from 59: byte, word, dword. */
static uint8_t extended(int id, int width)
{
	return (uint8_t)(59 + 3 * (id - 8) + width);
}

static uint8_t gpr(ZydisRegister r)
{
	int id = ZydisRegisterGetId(r);
	switch (ZydisRegisterGetClass(r)) {
	case ZYDIS_REGCLASS_GPR64:
		return gpr64[id];
	case ZYDIS_REGCLASS_GPR32:
		return id < 8 ? gpr32[id] : extended(id, 2);
	case ZYDIS_REGCLASS_GPR16:
		return id < 8 ? gpr16[id] : extended(id, 1);
	case ZYDIS_REGCLASS_GPR8:
		return id < 8 ? gpr8[id] : extended(id, 0);
	default:
		return 0;
	}
}

uint8_t pin_reg_of(ZydisRegister r)
{
	switch (r) {
	case ZYDIS_REGISTER_AH:
		return 28;
	case ZYDIS_REGISTER_CH:
		return 31;
	case ZYDIS_REGISTER_DH:
		return 34;
	case ZYDIS_REGISTER_BH:
		return 37;
	case ZYDIS_REGISTER_ES:
		return 22;
	case ZYDIS_REGISTER_CS:
		return 19;
	case ZYDIS_REGISTER_SS:
		return 20;
	case ZYDIS_REGISTER_DS:
		return 21;
	case ZYDIS_REGISTER_FS:
		return 23;
	case ZYDIS_REGISTER_GS:
		return 24;
	case ZYDIS_REGISTER_RFLAGS:
		return PIN_REG_RFLAGS;
	case ZYDIS_REGISTER_EFLAGS:
		return 57;
	case ZYDIS_REGISTER_FLAGS:
		return 43;
	case ZYDIS_REGISTER_RIP:
		return PIN_REG_RIP;
	case ZYDIS_REGISTER_EIP:
		return 58;
	case ZYDIS_REGISTER_IP:
		return 44;
	case ZYDIS_REGISTER_MXCSR:
		return 204;
	case ZYDIS_REGISTER_X87CONTROL:
		return 207;
	case ZYDIS_REGISTER_X87STATUS:
		return 208;
	case ZYDIS_REGISTER_X87TAG:
		return 209;
	default:
		break;
	}
	if (r >= ZYDIS_REGISTER_MM0 && r <= ZYDIS_REGISTER_MM7)
		return (uint8_t)(83 + (r - ZYDIS_REGISTER_MM0));
	if (r >= ZYDIS_REGISTER_XMM0 && r <= ZYDIS_REGISTER_XMM31)
		return (uint8_t)(91 + (r - ZYDIS_REGISTER_XMM0));
	if (r >= ZYDIS_REGISTER_YMM0 && r <= ZYDIS_REGISTER_YMM31)
		return (uint8_t)(123 + (r - ZYDIS_REGISTER_YMM0));
	if (r >= ZYDIS_REGISTER_ZMM0 && r <= ZYDIS_REGISTER_ZMM31)
		return (uint8_t)(155 + (r - ZYDIS_REGISTER_ZMM0));
	if (r >= ZYDIS_REGISTER_K0 && r <= ZYDIS_REGISTER_K7)
		return (uint8_t)(187 + (r - ZYDIS_REGISTER_K0));
	if (r >= ZYDIS_REGISTER_TMM0 && r <= ZYDIS_REGISTER_TMM7)
		return (uint8_t)(195 + (r - ZYDIS_REGISTER_TMM0));
	if (r >= ZYDIS_REGISTER_ST0 && r <= ZYDIS_REGISTER_ST7)
		return (uint8_t)(215 + (r - ZYDIS_REGISTER_ST0));
	return gpr(r);
}

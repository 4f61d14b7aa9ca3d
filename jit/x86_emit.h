/* Writing x86-64 machine code into the code cache: the handful of encodings the
 * translator needs, with the thread block reached through %gs:disp32. */
#ifndef JIT_X86_EMIT_H
#define JIT_X86_EMIT_H

#include <stdbool.h>
#include <stdint.h>

struct emitter {
	uint8_t *start;
	uint8_t *cur;
	uint8_t *end;
	bool overflow; /* set when a write did not fit; the caller retries with more room */
};

void emit_bytes(struct emitter *e, const void *bytes, unsigned n);
void emit_u8(struct emitter *e, uint8_t v);
void emit_u32(struct emitter *e, uint32_t v);
void emit_u64(struct emitter *e, uint64_t v);

/* reg is a hardware register number 0..15 (JIT_GPR_RAX ... JIT_GPR_R15). */
void emit_store_gs(struct emitter *e, int reg, uint32_t tb_offset); /* mov %reg,%gs:off */
void emit_load_gs(struct emitter *e, int reg, uint32_t tb_offset);  /* mov %gs:off,%reg */
void emit_jmp_gs(struct emitter *e, uint32_t tb_offset);	    /* jmp *%gs:off */
void emit_movabs(struct emitter *e, int reg, uint64_t imm);
void emit_mov_reg_reg(struct emitter *e, int dst, int src);

/* Branches to an absolute cache address; return the address of their rel32 field so the
 * branch can be re-pointed later (linking). The target must be within rel32 reach. */
uint8_t *emit_jmp_rel32(struct emitter *e, const uint8_t *target);
uint8_t *emit_jcc_rel32(struct emitter *e, unsigned condition, const uint8_t *target);
/* A jcc or jmp to code of the same fragment, its rel32 set (patch_rel32) before the fragment runs:
 * never re-pointed, so without the padding of the ones above. */
uint8_t *emit_jcc_rel32_local(struct emitter *e, unsigned condition);
uint8_t *emit_jmp_rel32_local(struct emitter *e);
bool rel32_reaches(const uint8_t *rel32_field, const uint8_t *target);
void patch_rel32(uint8_t *rel32_field, const uint8_t *target);
/* Where code falls through into code that may have to be left instead: a 5-byte NOP (padded
 * before, to be patched with one store), which patch_fall_through turns into a jmp to
 * `jump_to` or (NULL) back into the NOP, atomically for a thread running it. */
enum { FALL_THROUGH_SITE_LENGTH = 5 };
uint8_t *emit_fall_through_site(struct emitter *e);
void patch_fall_through(uint8_t *site, const uint8_t *jump_to);

/* lea disp(%rsp),%rsp: adjusts the stack pointer without touching flags. */
void emit_lea_rsp(struct emitter *e, int32_t disp);

/* add $amount,%gs:off (clobbers flags) and its flag-preserving equivalent (borrows %rax
 * through TB_SCRATCH_RAX). */
void emit_add_gs(struct emitter *e, uint32_t tb_offset, uint32_t amount);
/* sub $amount,%gs:off (its flags tell a budget check whether the slot went negative) */
void emit_sub_gs(struct emitter *e, uint32_t tb_offset, uint32_t amount);
void emit_add_gs_keep_flags(struct emitter *e, uint32_t tb_offset, uint32_t amount);
/* The same through register reg, whose value is dead (load, lea, store: flags untouched). */
void emit_add_gs_through(struct emitter *e, int reg, uint32_t tb_offset, uint32_t amount);

/* The app's status flags kept across inserted code: save stores %rax in TB_SCRATCH_RAX and
 * the flags (lahf/seto image) in TB_SCRATCH_FLAGS; restore brings both back. */
void emit_save_flags(struct emitter *e);
void emit_restore_flags(struct emitter *e);
/* The same for inserted code that leaves %rax alone: the flags' image stays in %ax. */
void emit_save_flags_in_rax(struct emitter *e);
void emit_restore_flags_from_rax(struct emitter *e);

#endif
